// The Grafana dashboard of deploy/grafana: a dashboard Grafana 10 and 11 load (current
// schema, the data source a variable of type prometheus), every panel query parses
// (promtool checks it as a recording rule, Grafana's variables replaced by values), and
// every query, every variable query and every alert of deploy/prometheus names only
// series the controller exports, as read from the /metrics of a controller that served
// a request against the simulator. kustomize renders the ConfigMap the Grafana sidecar
// loads (with kubectl; without it, its kustomization is read).
#include <boost/test/unit_test.hpp>

#include <map>
#include <regex>

#include "deploy/prometheus_support.hpp"
#include "e2e/e2e_fixture.hpp"

using namespace schedopt::deploy_test;
using namespace schedopt::e2e;
namespace utf = boost::unit_test;

namespace {

const std::string dashboard_file = "deploy/grafana/schedopt-dashboard.json";

json shipped_dashboard() { return json::parse(slurp(source_dir + "/" + dashboard_file)); }

/// Every panel, those inside collapsed rows included; rows themselves are not.
std::vector<json> panels_of(const json& dash) {
  std::vector<json> out;
  for (const auto& p : dash.value("panels", json::array())) {
    if (p.value("type", "") != "row")
      out.push_back(p);
    for (const auto& inner : p.value("panels", json::array()))
      out.push_back(inner);
  }
  return out;
}

struct query {
  std::string where; // panel title and refId
  std::string expr;
};

std::vector<query> panel_queries(const json& dash) {
  std::vector<query> out;
  for (const auto& p : panels_of(dash))
    for (const auto& t : p.value("targets", json::array()))
      out.push_back({p.value("title", "") + " " + t.value("refId", ""), t.value("expr", "")});
  return out;
}

/// The expression with Grafana's variables replaced as Grafana would at query time: the
/// dashboard's own by their default (an "All" by its allValue), the built-in intervals by
/// durations.
std::string with_values(std::string expr, const json& dash) {
  std::map<std::string, std::string> values = {
    {"__rate_interval", "5m"}, {"__interval", "1m"}, {"__range", "6h"}};
  for (const auto& v : dash["templating"]["list"]) {
    std::string value = v.value("/current/value"_json_pointer, std::string());
    if (value == "$__all")
      value = v.value("allValue", ".*");
    values[v.value("name", "")] = value;
  }
  // Longest names first, so $__rate_interval is not read as $__rate followed by text.
  std::vector<std::pair<std::string, std::string>> ordered(values.begin(), values.end());
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [name, value] : ordered)
    for (const std::string& ref : {"${" + name + "}", "$" + name})
      for (std::size_t at; (at = expr.find(ref)) != std::string::npos;)
        expr.replace(at, ref.size(), value);
  return expr;
}

/// The metric a variable's label_values(metric{...}, label) query reads.
std::string variable_metric(const json& variable) {
  static const std::regex re(R"(label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*))");
  std::smatch m;
  std::string q = variable.value("definition", "");
  return std::regex_search(q, m, re) ? m[1].str() : std::string();
}

} // namespace

BOOST_AUTO_TEST_SUITE(dashboard)

BOOST_AUTO_TEST_CASE(dashboard_is_grafana_10_json_with_a_prometheus_datasource_variable) {
  json dash = shipped_dashboard();
  // 39: the schema of Grafana 10.4 and 11.0; later versions migrate it when they load it.
  BOOST_TEST(dash.value("schemaVersion", 0) == 39);
  BOOST_TEST(!dash.value("uid", "").empty());
  std::map<std::string, json> variables;
  for (const auto& v : dash["templating"]["list"])
    variables[v.value("name", "")] = v;
  BOOST_REQUIRE(variables.count("datasource") == 1u);
  BOOST_TEST(variables["datasource"].value("type", "") == "datasource");
  BOOST_TEST(variables["datasource"].value("query", "") == "prometheus");
  const json by_variable = {{"type", "prometheus"}, {"uid", "${datasource}"}};
  for (const auto& [name, v] : variables)
    if (v.value("type", "") == "query")
      BOOST_TEST(v["datasource"] == by_variable, name);

  auto panels = panels_of(dash);
  BOOST_REQUIRE(panels.size() >= 8u);
  std::set<int> ids;
  for (const auto& p : panels) {
    BOOST_TEST_CONTEXT("panel " << p.value("title", "")) {
      BOOST_TEST(ids.insert(p.value("id", 0)).second, "panel id not unique");
      BOOST_TEST(p["datasource"] == by_variable);
      BOOST_TEST(!p.value("description", "").empty());
      BOOST_REQUIRE(!p.value("targets", json::array()).empty());
      for (const auto& t : p["targets"])
        BOOST_TEST(t["datasource"] == by_variable);
    }
  }
  // No two panels (rows included) cover the same cell of the 24-column grid.
  std::set<std::pair<int, int>> cells;
  for (const auto& p : dash["panels"]) {
    const json& g = p["gridPos"];
    BOOST_TEST(g.value("x", 0) + g.value("w", 0) <= 24, p.value("title", ""));
    for (int x = g.value("x", 0); x < g.value("x", 0) + g.value("w", 0); ++x)
      for (int y = g.value("y", 0); y < g.value("y", 0) + g.value("h", 0); ++y)
        BOOST_TEST(cells.insert({x, y}).second, p.value("title", "") << " overlaps at " << x << "," << y);
  }
}

BOOST_AUTO_TEST_CASE(every_panel_query_parses_with_promtool, *utf::timeout(60)) {
  const std::string promtool = require_promtool();
  json dash = shipped_dashboard();
  auto queries = panel_queries(dash);
  BOOST_REQUIRE(!queries.empty());
  // Each query as a recording rule, the way promtool parses PromQL offline.
  YAML::Emitter rules;
  rules << YAML::BeginMap << YAML::Key << "groups" << YAML::Value << YAML::BeginSeq << YAML::BeginMap
        << YAML::Key << "name" << YAML::Value << "dashboard" << YAML::Key << "rules" << YAML::Value
        << YAML::BeginSeq;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    std::string expr = with_values(queries[i].expr, dash);
    BOOST_TEST(expr.find('$') == std::string::npos, queries[i].where << ": a variable left: " << expr);
    rules << YAML::BeginMap << YAML::Key << "record" << YAML::Value << "dashboard_query_" + std::to_string(i)
          << YAML::Key << "expr" << YAML::Value << expr << YAML::EndMap;
  }
  rules << YAML::EndSeq << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
  scratch_dir tmp;
  const fs::path file = tmp.path / "dashboard-queries.yaml";
  std::ofstream(file) << rules.c_str() << "\n";

  auto checked = run_shell("'" + promtool + "' check rules '" + file.string() + "'");
  BOOST_TEST(checked.first == 0, checked.second);
  BOOST_TEST(checked.second.find("SUCCESS: " + std::to_string(queries.size()) + " rules found")
               != std::string::npos,
             checked.second);
}

BOOST_AUTO_TEST_CASE(queries_and_alerts_name_only_series_the_controller_exports, *utf::timeout(180)) {
  // A request with successes and failures, so the metrics described at first use (the
  // migration duration histogram, the finished requests) are on the page.
  scenario sc("portworx", {"--nodes", "6", "--vmis", "24", "--misplaced", "0.5", "--seed", "11",
                           "--migration-duration", "300ms", "--migration-failure-rate", "0.3"});
  auto& ctl = sc.start_controller();
  sc.create_request("dashboard-metrics", scenario::enabled_spec());
  json done = sc.wait_final("dashboard-metrics");
  BOOST_REQUIRE(counter(done, "successful") > 0);
  auto page = plain_get("http://127.0.0.1:" + std::to_string(ctl.metrics_port()) + "/metrics");
  BOOST_REQUIRE_MESSAGE(page.status == 200, "GET /metrics answered " + std::to_string(page.status));
  const auto exported = exposed_series_names(page.body);
  BOOST_REQUIRE(exported.count("schedopt_migration_duration_seconds_bucket") == 1u);

  json dash = shipped_dashboard();
  std::size_t named = 0;
  auto check = [&](const std::string& where, const std::set<std::string>& names) {
    BOOST_TEST_CONTEXT(where) {
      BOOST_TEST(!names.empty(), "names no series");
      for (const auto& name : names) {
        ++named;
        BOOST_TEST(exported.count(name) == 1u, name << " is not exported by the controller");
      }
    }
  };
  for (const auto& q : panel_queries(dash))
    check("panel " + q.where + ": " + q.expr, promql_metric_names(with_values(q.expr, dash)));
  for (const auto& v : dash["templating"]["list"])
    if (v.value("type", "") == "query")
      check("variable " + v.value("name", ""), {variable_metric(v)});
  for (const auto& alert : shipped_alerts())
    check("alert " + alert["alert"].as<std::string>(), promql_metric_names(alert["expr"].as<std::string>()));
  BOOST_TEST_MESSAGE(named << " metric names checked against " << exported.size() << " exported series names");
  BOOST_TEST(ctl.terminate() == 0);
}

BOOST_AUTO_TEST_CASE(kustomize_renders_the_configmap_the_grafana_sidecar_loads, *utf::timeout(60)) {
  const std::string json_text = slurp(source_dir + "/" + dashboard_file);
  if (on_path("kubectl").empty()) {
    // Without kubectl, what kustomize would be told.
    YAML::Node k = YAML::LoadFile(source_dir + "/deploy/grafana/kustomization.yaml");
    BOOST_TEST(k["generatorOptions"]["disableNameSuffixHash"].as<bool>());
    BOOST_TEST(k["generatorOptions"]["labels"]["grafana_dashboard"].as<std::string>() == "1");
    BOOST_TEST(k["configMapGenerator"][0]["files"][0].as<std::string>() == "schedopt-dashboard.json");
    BOOST_TEST_MESSAGE("kubectl missing: deploy/grafana/kustomization.yaml read, not rendered");
    return;
  }
  // The ConfigMap schedopt-dashboard of rendered manifests; a null node (not a map) if none.
  auto configmap_in = [&](const std::string& rendered) {
    for (const auto& doc : YAML::LoadAll(rendered))
      if (doc.IsMap() && doc["kind"].as<std::string>("") == "ConfigMap"
          && doc["metadata"]["name"].as<std::string>("") == "schedopt-dashboard")
        return doc;
    return YAML::Node();
  };
  auto alone = run_shell("kubectl kustomize '" + source_dir + "/deploy/grafana'");
  BOOST_REQUIRE_MESSAGE(alone.first == 0, alone.second);
  YAML::Node cm = configmap_in(alone.second);
  BOOST_REQUIRE_MESSAGE(cm.IsMap(), "no ConfigMap schedopt-dashboard in:\n" + alone.second);
  BOOST_TEST(cm["metadata"]["labels"]["grafana_dashboard"].as<std::string>("") == "1");
  BOOST_TEST(cm["data"]["schedopt-dashboard.json"].as<std::string>("") == json_text);

  // Added to an overlay of deploy/default, it takes the overlay's namespace. kustomize
  // wants relative paths to bases.
  scratch_dir tmp;
  const std::string deploy = fs::relative(fs::path(source_dir) / "deploy", tmp.path).string();
  std::ofstream(tmp.path / "kustomization.yaml")
    << "namespace: schedopt\nresources:\n  - " << deploy << "/default\n  - " << deploy << "/grafana\n";
  auto overlay = run_shell("kubectl kustomize '" + tmp.path.string() + "'");
  BOOST_REQUIRE_MESSAGE(overlay.first == 0, overlay.second);
  cm = configmap_in(overlay.second);
  BOOST_REQUIRE_MESSAGE(cm.IsMap(), "no ConfigMap schedopt-dashboard in the overlay");
  BOOST_TEST(cm["metadata"]["namespace"].as<std::string>("") == "schedopt");
  BOOST_TEST(cm["metadata"]["labels"]["grafana_dashboard"].as<std::string>("") == "1");

  // deploy/default alone still renders, without the dashboard.
  auto plain = run_shell("kubectl kustomize '" + source_dir + "/deploy/default'");
  BOOST_REQUIRE_MESSAGE(plain.first == 0, plain.second);
  BOOST_TEST(!configmap_in(plain.second).IsMap());
}

BOOST_AUTO_TEST_SUITE_END()
