// Renders explanations; every fact comes from the explanation, none is derived here
// except the words put around it.
#include "model/kinds/vm_hyperconvergence/explanation_report.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "model/kinds/vm_hyperconvergence/cool_off.hpp"
#include "model/quantity.hpp"
#include "model/text_table.hpp"

namespace schedopt {

namespace {

/// A rule's name as a table column: "notCurrentNode" -> "NOT-CURRENT-NODE".
std::string column_name(const std::string& rule) {
  std::string out;
  for (char c : rule) {
    if (c >= 'A' && c <= 'Z' && !out.empty())
      out += '-';
    out += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  }
  return out;
}

nlohmann::json optional_time(const std::optional<timestamp>& t) {
  return t ? nlohmann::json(format_rfc3339(*t)) : nlohmann::json(nullptr);
}

nlohmann::json resources(const resource_list& r) {
  nlohmann::json o = nlohmann::json::object();
  if (r.cpu_millis)
    o["cpu"] = format_cpu(*r.cpu_millis);
  if (r.memory_bytes)
    o["memory"] = format_memory(*r.memory_bytes);
  return o;
}

std::string yes_no(bool b) {
  return b ? "yes" : "no";
}

std::string score_of(const vmi_explanation& ex) {
  if (ex.best_score == 0)
    return "";
  return std::to_string(ex.current_score) + "/" + std::to_string(ex.best_score);
}

std::string cool_off_line(const cool_off_explanation& c) {
  if (!c.last_migration)
    return "no schedopt migration recorded (period " + format_go_duration(c.period) + ")";
  return "last migration " + format_rfc3339(*c.last_migration) + ", eligible after "
         + format_rfc3339(*c.eligible_after) + (c.cooling_off ? " (cooling off)" : " (passed)");
}

std::string in_flight_line(const vmi_explanation& ex) {
  if (ex.in_flight.empty())
    return "none";
  std::vector<std::string> parts;
  for (const auto& m : ex.in_flight)
    parts.push_back(ex.namespace_ + "/" + m.name + " ("
                    + (m.phase.empty() ? "no phase yet" : m.phase)
                    + (m.schedopt ? ", schedopt" : "") + ")");
  return join(parts, ", ");
}

std::string next_request_line(const vmi_explanation& ex) {
  if (!ex.next)
    return "none pending";
  auto stage = ex.next->stage == request_stage::none ? "new" : to_string(ex.next->stage);
  return ex.next->name + " (" + stage + ")";
}

std::string cap_line(const per_run_cap& c) {
  std::string out = "maxNonHyperconvergedPerRun " + std::to_string(c.max_non_hyperconverged_per_run);
  if (c.position == 0)
    return out + ": not counted (not an eligible candidate)";
  out += ": candidate " + std::to_string(c.position);
  return out + (c.deferred ? ", deferred to a later request" : ", within the cap");
}

// The WHY column of --all: the skip reason, else what happens to it.
std::string why_column(const vmi_explanation& ex) {
  if (!ex.reason.empty())
    return ex.reason;
  if (ex.cap.deferred)
    return "deferred by maxNonHyperconvergedPerRun";
  if (ex.disposition == "eligible")
    return "migrates with " + next_request_line(ex);
  return "";
}

} // namespace

nlohmann::json explanation_json(const vmi_explanation& ex) {
  nlohmann::json o;
  o["kind"] = "VMIExplanation";
  o["namespace"] = ex.namespace_;
  o["name"] = ex.name;
  o["phase"] = ex.phase;
  o["node"] = ex.node;
  o["considered"] = ex.considered;
  o["verdict"] = ex.verdict;
  o["disposition"] = ex.disposition;
  o["reason"] = ex.reason;
  o["evaluationError"] = ex.evaluation_error;
  auto volumes = nlohmann::json::array();
  for (const auto& v : ex.volumes)
    volumes.push_back({{"volume", v.volume},
                       {"claim", v.claim},
                       {"persistentVolume", v.persistent_volume},
                       {"driverOwned", v.driver_owned},
                       {"replicaNodes", v.replica_nodes},
                       {"problem", v.problem}});
  o["volumes"] = std::move(volumes);
  o["currentScore"] = ex.current_score;
  o["bestScore"] = ex.best_score;
  o["bestNodes"] = ex.best_nodes;
  o["targetNodes"] = ex.target_nodes;
  o["targetScore"] = ex.target_score;
  auto nodes = nlohmann::json::array();
  for (const auto& n : ex.nodes) {
    auto rules = nlohmann::json::array();
    for (const auto& r : n.rules)
      rules.push_back({{"rule", r.rule}, {"passed", r.passed}, {"detail", r.detail}});
    nodes.push_back({{"name", n.name},
                     {"score", n.score},
                     {"current", n.current},
                     {"found", n.found},
                     {"allowed", n.allowed},
                     {"target", n.target},
                     {"result", n.result},
                     {"rules", std::move(rules)},
                     {"allocatable", resources(n.allocatable)},
                     {"used", resources({n.used.cpu_millis, n.used.memory_bytes})}});
  }
  o["nodes"] = std::move(nodes);
  o["coolOff"] = {{"period", format_go_duration(ex.cool_off.period)},
                  {"lastMigration", optional_time(ex.cool_off.last_migration)},
                  {"eligibleAfter", optional_time(ex.cool_off.eligible_after)},
                  {"coolingOff", ex.cool_off.cooling_off}};
  auto flights = nlohmann::json::array();
  for (const auto& m : ex.in_flight)
    flights.push_back({{"name", m.name}, {"phase", m.phase}, {"schedopt", m.schedopt}});
  o["migrationsInFlight"] = std::move(flights);
  o["nextRequest"] = ex.next ? nlohmann::json{{"name", ex.next->name},
                                               {"stage", to_string(ex.next->stage)}}
                             : nlohmann::json(nullptr);
  o["perRunCap"] = {{"maxNonHyperconvergedPerRun", ex.cap.max_non_hyperconverged_per_run},
                    {"position", ex.cap.position},
                    {"deferred", ex.cap.deferred}};
  return o;
}

std::string render_explanation_json(const vmi_explanation& ex) {
  return explanation_json(ex).dump(2) + "\n";
}

std::string render_explanations_json(const std::vector<vmi_explanation>& all) {
  nlohmann::json list{{"kind", "List"}, {"items", nlohmann::json::array()}};
  for (const auto& ex : all)
    list["items"].push_back(explanation_json(ex));
  return list.dump(2) + "\n";
}

std::string render_explanation_text(const vmi_explanation& ex) {
  std::vector<std::vector<std::string>> fields{
    {"VMI:", ex.namespace_ + "/" + ex.name},
    {"Phase:", ex.phase},
    {"Node:", ex.node + (ex.best_score > 0 ? " (score " + score_of(ex) + ")" : "")},
    {"Verdict:", ex.verdict},
    {"Disposition:", ex.disposition},
    {"Reason:", ex.reason},
    {"Best nodes:", join(ex.best_nodes) + (ex.best_score > 0 ? " (score " + std::to_string(ex.best_score) + ")" : "")},
    {"Target nodes:", join(ex.target_nodes)},
    {"Cool-off:", cool_off_line(ex.cool_off)},
    {"In flight:", in_flight_line(ex)},
    {"Next request:", next_request_line(ex)},
    {"Per-run cap:", cap_line(ex.cap)},
  };
  if (!ex.evaluation_error.empty())
    fields.insert(fields.begin() + 6, {"Error:", ex.evaluation_error});
  std::string out = render_text_table(std::move(fields));
  if (!ex.volumes.empty()) {
    std::vector<std::vector<std::string>> rows{
      {"VOLUME", "CLAIM", "PV", "DRIVER", "REPLICA NODES"}};
    for (const auto& v : ex.volumes)
      rows.push_back({v.volume, v.claim, v.persistent_volume, yes_no(v.driver_owned),
                      v.problem.empty() ? join(v.replica_nodes) : v.problem});
    out += "Volumes:\n" + render_text_table(std::move(rows), "  ");
  }
  if (!ex.nodes.empty()) {
    // One column per rule, named from the rules themselves, so a rule added to
    // admission_rules() gets its column instead of shifting the others under wrong heads.
    std::vector<std::string> rule_names;
    for (const auto& n : ex.nodes)
      for (const auto& r : n.rules)
        if (std::find(rule_names.begin(), rule_names.end(), r.rule) == rule_names.end())
          rule_names.push_back(r.rule);
    std::vector<std::string> header{"NODE", "SCORE"};
    for (const auto& name : rule_names)
      header.push_back(column_name(name));
    header.push_back("RESULT");
    std::vector<std::vector<std::string>> rows{std::move(header)};
    for (const auto& n : ex.nodes) {
      std::vector<std::string> row{n.name, std::to_string(n.score)};
      for (const auto& name : rule_names) {
        auto r = std::find_if(n.rules.begin(), n.rules.end(),
                              [&](const rule_result& x) { return x.rule == name; });
        row.push_back(r == n.rules.end() ? "-" : r->passed ? "ok" : "no");
      }
      row.push_back(n.result);
      rows.push_back(std::move(row));
    }
    out += "Nodes:\n" + render_text_table(std::move(rows), "  ");
  }
  return out;
}

std::string render_explanations_table(const std::vector<vmi_explanation>& all) {
  std::vector<std::vector<std::string>> rows{
    {"NAMESPACE", "NAME", "NODE", "VERDICT", "SCORE", "DISPOSITION", "TARGETS", "WHY"}};
  for (const auto& ex : all)
    rows.push_back({ex.namespace_, ex.name, ex.node, ex.verdict, score_of(ex), ex.disposition,
                    join(ex.target_nodes), why_column(ex)});
  return render_text_table(std::move(rows));
}

expected<std::string> render_explain(const explain_query& query, const explainer& why) {
  bool json = query.output == "json";
  if (query.key.empty()) {
    auto all = why.explain_misplaced();
    return json ? render_explanations_json(all) : render_explanations_table(all);
  }
  auto ex = why.explain(query.key);
  if (!ex)
    return make_error(ec::not_found, "virtualmachineinstance \"" + query.key + "\" not found");
  return json ? render_explanation_json(*ex) : render_explanation_text(*ex);
}

} // namespace schedopt
