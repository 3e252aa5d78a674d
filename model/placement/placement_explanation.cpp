// See placement_explanation.hpp. Every fact comes from the explanation; nothing is
// derived here except the marks weigh_nodes() copies from it and the words around them.
#include "model/placement/placement_explanation.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "model/quantity.hpp"
#include "model/text_table.hpp"

namespace schedopt {

namespace {

bool contains(const std::vector<std::string>& items, const std::string& s) {
  return std::find(items.begin(), items.end(), s) != items.end();
}

/// A rule's name as a table column: "requiredNodeAffinity" -> "REQUIRED-NODE-AFFINITY".
std::string column_name(const std::string& rule) {
  std::string out;
  for (char c : rule) {
    if (c >= 'A' && c <= 'Z' && !out.empty())
      out += '-';
    out += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  }
  return out;
}

nlohmann::json resources_json(const resource_list& r) {
  nlohmann::json o = nlohmann::json::object();
  if (r.cpu_millis)
    o["cpu"] = format_cpu(*r.cpu_millis);
  if (r.memory_bytes)
    o["memory"] = format_memory(*r.memory_bytes);
  return o;
}

nlohmann::json node_json(const node_explanation& n) {
  auto rules = nlohmann::json::array();
  for (const auto& r : n.rules)
    rules.push_back({{"rule", r.rule}, {"passed", r.passed}, {"detail", r.detail}});
  return {{"name", n.name},
          {"score", n.score},
          {"current", n.current},
          {"best", n.best},
          {"found", n.found},
          {"allowed", n.allowed},
          {"target", n.target},
          {"result", n.result},
          {"rules", std::move(rules)},
          {"allocatable", resources_json(n.allocatable)},
          {"used", resources_json({n.used.cpu_millis, n.used.memory_bytes})}};
}

} // namespace

std::vector<node_explanation> weigh_nodes(const std::vector<node>& nodes,
                                          const std::map<std::string, int>& scores,
                                          const std::map<std::string, node_usage>& usage,
                                          const std::string& current_node,
                                          const placement_explanation& ex,
                                          const node_rules& rules_on) {
  static const node_usage nothing;
  std::vector<node_explanation> out;
  std::set<std::string> listed;
  auto marked = [&](const std::string& name) {
    node_explanation ne;
    ne.name = name;
    auto s = scores.find(name);
    ne.score = s == scores.end() ? 0 : s->second;
    ne.current = name == current_node;
    ne.best = contains(ex.best_nodes, name);
    ne.target = contains(ex.target_nodes, name);
    return ne;
  };
  for (const auto& n : nodes) {
    auto ne = marked(n.metadata.name);
    auto u = usage.find(ne.name);
    ne.used = u == usage.end() ? nothing : u->second;
    ne.allocatable = n.allocatable;
    ne.rules = rules_on(n, ne.used);
    ne.allowed = std::all_of(ne.rules.begin(), ne.rules.end(),
                             [](const rule_result& r) { return r.passed; });
    listed.insert(ne.name);
    out.push_back(std::move(ne));
  }
  for (const auto& [name, score] : scores)
    if (!listed.count(name)) {
      auto ne = marked(name);
      ne.found = false;
      out.push_back(std::move(ne));
    }
  std::sort(out.begin(), out.end(), [](const node_explanation& a, const node_explanation& b) {
    return std::make_tuple(-a.score, a.name) < std::make_tuple(-b.score, b.name);
  });
  return out;
}

nlohmann::json optional_time_json(const std::optional<timestamp>& t) {
  return t ? nlohmann::json(format_rfc3339(*t)) : nlohmann::json(nullptr);
}

nlohmann::json claim_json(const claim_explanation& c) {
  return {{"claim", c.claim},
          {"persistentVolume", c.persistent_volume},
          {"driverOwned", c.driver_owned},
          {"replicaNodes", c.replica_nodes},
          {"problem", c.problem}};
}

void add_placement_json(nlohmann::json& o, const placement_explanation& p) {
  o["currentScore"] = p.current_score;
  o["bestScore"] = p.best_score;
  o["bestNodes"] = p.best_nodes;
  o["targetNodes"] = p.target_nodes;
  auto nodes = nlohmann::json::array();
  for (const auto& n : p.nodes)
    nodes.push_back(node_json(n));
  o["nodes"] = std::move(nodes);
  o["perRunCap"] = {{"maxNonHyperconvergedPerRun", p.cap.max_non_hyperconverged_per_run},
                    {"position", p.cap.position},
                    {"deferred", p.cap.deferred}};
}

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string score_text(const placement_explanation& p) {
  if (p.best_score == 0)
    return "";
  return std::to_string(p.current_score) + "/" + std::to_string(p.best_score);
}

std::string best_nodes_text(const placement_explanation& p) {
  return join(p.best_nodes)
         + (p.best_score > 0 ? " (score " + std::to_string(p.best_score) + ")" : "");
}

std::string cap_line(const per_run_cap& c) {
  std::string out = "maxNonHyperconvergedPerRun " + std::to_string(c.max_non_hyperconverged_per_run);
  if (c.position == 0)
    return out + ": not counted (not an eligible candidate)";
  out += ": candidate " + std::to_string(c.position);
  return out + (c.deferred ? ", deferred to a later request" : ", within the cap");
}

std::vector<std::string> claim_cells(const claim_explanation& c) {
  return {c.claim, c.persistent_volume, yes_no(c.driver_owned),
          c.problem.empty() ? join(c.replica_nodes) : c.problem};
}

std::string nodes_section(const std::vector<node_explanation>& nodes) {
  if (nodes.empty())
    return "";
  std::vector<std::string> rule_names;
  for (const auto& n : nodes)
    for (const auto& r : n.rules)
      if (!contains(rule_names, r.rule))
        rule_names.push_back(r.rule);
  std::vector<std::string> header{"NODE", "SCORE"};
  for (const auto& name : rule_names)
    header.push_back(column_name(name));
  header.push_back("RESULT");
  std::vector<std::vector<std::string>> rows{std::move(header)};
  for (const auto& n : nodes) {
    std::vector<std::string> row{n.name, std::to_string(n.score)};
    for (const auto& name : rule_names) {
      auto r = std::find_if(n.rules.begin(), n.rules.end(),
                            [&](const rule_result& x) { return x.rule == name; });
      row.push_back(r == n.rules.end() ? "-" : r->passed ? "ok" : "no");
    }
    row.push_back(n.result);
    rows.push_back(std::move(row));
  }
  return "Nodes:\n" + render_text_table(std::move(rows), "  ");
}

} // namespace schedopt
