// Renders pod explanations; every fact comes from the explanation, none is derived here
// except the words put around it.
#include "model/kinds/pod_hyperconvergence/pod_explanation_report.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "model/quantity.hpp"
#include "model/text_table.hpp"

namespace schedopt::pod_hyperconvergence {

namespace {

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

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string score_of(const pod_explanation& ex) {
  if (ex.best_score == 0)
    return "";
  return std::to_string(ex.current_score) + "/" + std::to_string(ex.best_score);
}

std::string owner_column(const pod_explanation& ex) {
  return ex.owner.kind.empty() ? "" : ex.owner.kind + "/" + ex.owner.name;
}

std::string owner_line(const owner_explanation& o) {
  if (o.counts)
    return o.kind + "/" + o.name + " (replicas " + std::to_string(o.replicas)
           + "; re-creates the pod once evicted)";
  return (o.kind.empty() ? std::string() : o.kind + "/" + o.name + ": ") + o.why_not;
}

std::string scheduler_line(const pod_explanation& ex) {
  return ex.scheduler + (ex.storage_aware_scheduler ? " (storage-aware)" : " (not storage-aware)");
}

std::string cool_off_line(const pod_cool_off_explanation& c) {
  std::string period = "period " + format_go_duration(c.period);
  if (!c.record_error.empty())
    return "record ignored: " + c.record_error + " (" + period + ")";
  if (!c.last_eviction)
    return "no schedopt eviction recorded on the owner (" + period + ")";
  std::string out = "last eviction " + format_rfc3339(*c.last_eviction) + ", eligible after "
                    + format_rfc3339(*c.eligible_after) + " (" + period + ")";
  if (c.this_request)
    return out + ": written by this request, holds none of its pods back";
  return out + (c.cooling_off ? ": cooling off" : ": passed");
}

std::string cap_line(const pod_per_run_cap& c) {
  std::string out = "maxNonHyperconvergedPerRun " + std::to_string(c.max_non_hyperconverged_per_run);
  if (c.position == 0)
    return out + ": not counted (not an eligible candidate)";
  out += ": candidate " + std::to_string(c.position);
  return out + (c.deferred ? ", deferred to a later request" : ", within the cap");
}

// The WHY column of --all: the skip reason, else what happens to the pod.
std::string why_column(const pod_explanation& ex) {
  if (!ex.reason.empty())
    return ex.reason;
  if (ex.cap.deferred)
    return "deferred by maxNonHyperconvergedPerRun";
  if (ex.disposition == to_string(pod_disposition::eligible))
    return "evicted by the next request, budget permitting";
  return "";
}

} // namespace

nlohmann::json pod_explanation_json(const pod_explanation& ex) {
  nlohmann::json o;
  o["kind"] = "PodExplanation";
  o["namespace"] = ex.namespace_;
  o["name"] = ex.name;
  o["phase"] = ex.phase;
  o["node"] = ex.node;
  o["scheduler"] = ex.scheduler;
  o["storageAwareScheduler"] = ex.storage_aware_scheduler;
  o["considered"] = ex.considered;
  o["notConsideredWhy"] = ex.not_considered_why;
  o["owner"] = {{"kind", ex.owner.kind},
                {"name", ex.owner.name},
                {"counts", ex.owner.counts},
                {"whyNot", ex.owner.why_not},
                {"replicas", ex.owner.replicas}};
  o["verdict"] = ex.verdict;
  o["disposition"] = ex.disposition;
  o["reason"] = ex.reason;
  o["evaluationError"] = ex.evaluation_error;
  auto volumes = nlohmann::json::array();
  for (const auto& v : ex.volumes)
    volumes.push_back({{"claim", v.claim},
                       {"persistentVolume", v.persistent_volume},
                       {"driverOwned", v.driver_owned},
                       {"replicaNodes", v.replica_nodes},
                       {"problem", v.problem}});
  o["volumes"] = std::move(volumes);
  o["currentScore"] = ex.current_score;
  o["bestScore"] = ex.best_score;
  o["bestNodes"] = ex.best_nodes;
  o["targetNodes"] = ex.target_nodes;
  auto nodes = nlohmann::json::array();
  for (const auto& n : ex.nodes) {
    auto rules = nlohmann::json::array();
    for (const auto& r : n.rules)
      rules.push_back({{"rule", r.rule}, {"passed", r.passed}, {"detail", r.detail}});
    nodes.push_back({{"name", n.name},
                     {"score", n.score},
                     {"current", n.current},
                     {"best", n.best},
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
                  {"lastEviction", optional_time(ex.cool_off.last_eviction)},
                  {"eligibleAfter", optional_time(ex.cool_off.eligible_after)},
                  {"coolingOff", ex.cool_off.cooling_off},
                  {"thisRequest", ex.cool_off.this_request},
                  {"recordError", ex.cool_off.record_error}};
  o["budget"] = ex.budget;
  o["perRunCap"] = {{"maxNonHyperconvergedPerRun", ex.cap.max_non_hyperconverged_per_run},
                    {"position", ex.cap.position},
                    {"deferred", ex.cap.deferred}};
  return o;
}

std::string render_pod_explanation_json(const pod_explanation& ex) {
  return pod_explanation_json(ex).dump(2) + "\n";
}

std::string render_pod_explanations_json(const std::vector<pod_explanation>& all) {
  nlohmann::json list{{"kind", "List"}, {"items", nlohmann::json::array()}};
  for (const auto& ex : all)
    list["items"].push_back(pod_explanation_json(ex));
  return list.dump(2) + "\n";
}

std::string render_pod_explanation_text(const pod_explanation& ex) {
  std::vector<std::vector<std::string>> fields{
    {"Pod:", ex.namespace_ + "/" + ex.name},
    {"Phase:", ex.phase + (ex.considered ? "" : " (not considered: " + ex.not_considered_why + ")")},
    {"Node:", ex.node + (ex.best_score > 0 ? " (score " + score_of(ex) + ")" : "")},
    {"Scheduler:", scheduler_line(ex)},
    {"Owner:", owner_line(ex.owner)},
    {"Verdict:", ex.verdict},
    {"Disposition:", ex.disposition},
    {"Reason:", ex.reason},
    {"Best nodes:", join(ex.best_nodes) + (ex.best_score > 0 ? " (score " + std::to_string(ex.best_score) + ")" : "")},
    {"Target nodes:", join(ex.target_nodes)},
    {"Cool-off:", cool_off_line(ex.cool_off)},
    {"Budget:", ex.budget.empty() ? "none covers the pod" : ex.budget},
    {"Per-run cap:", cap_line(ex.cap)},
  };
  if (!ex.evaluation_error.empty())
    fields.insert(fields.begin() + 8, {"Error:", ex.evaluation_error});
  std::string out = render_text_table(std::move(fields));
  if (!ex.volumes.empty()) {
    std::vector<std::vector<std::string>> rows{{"CLAIM", "PV", "DRIVER", "REPLICA NODES"}};
    for (const auto& v : ex.volumes)
      rows.push_back({v.claim, v.persistent_volume, yes_no(v.driver_owned),
                      v.problem.empty() ? join(v.replica_nodes) : v.problem});
    out += "Volumes:\n" + render_text_table(std::move(rows), "  ");
  }
  if (!ex.nodes.empty()) {
    // One column per rule, named from the rules themselves (pod_admission_rules()).
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
                              [&](const pod_rule_result& x) { return x.rule == name; });
        row.push_back(r == n.rules.end() ? "-" : r->passed ? "ok" : "no");
      }
      row.push_back(n.result);
      rows.push_back(std::move(row));
    }
    out += "Nodes:\n" + render_text_table(std::move(rows), "  ");
  }
  return out;
}

std::string render_pod_explanations_table(const std::vector<pod_explanation>& all) {
  std::vector<std::vector<std::string>> rows{{"NAMESPACE", "NAME", "NODE", "OWNER", "VERDICT",
                                              "SCORE", "DISPOSITION", "TARGETS", "BUDGET", "WHY"}};
  for (const auto& ex : all)
    rows.push_back({ex.namespace_, ex.name, ex.node, owner_column(ex), ex.verdict, score_of(ex),
                    ex.disposition, join(ex.target_nodes), ex.budget, why_column(ex)});
  return render_text_table(std::move(rows));
}

expected<std::string> render_pod_explain(const std::string& output, const std::string& key,
                                         const pod_explainer& why) {
  bool json = output == "json";
  if (key.empty()) {
    auto all = why.explain_misplaced();
    return json ? render_pod_explanations_json(all) : render_pod_explanations_table(all);
  }
  auto ex = why.explain(key);
  if (!ex)
    return make_error(ec::not_found, "pod \"" + key + "\" not found");
  return json ? render_pod_explanation_json(*ex) : render_pod_explanation_text(*ex);
}

} // namespace schedopt::pod_hyperconvergence
