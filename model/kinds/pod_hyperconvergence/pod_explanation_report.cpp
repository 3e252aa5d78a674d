// Renders pod explanations; every fact comes from the explanation, none is derived here
// except the words put around it.
#include "model/kinds/pod_hyperconvergence/pod_explanation_report.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "model/quantity.hpp"
#include "model/text_table.hpp"

namespace schedopt::pod_hyperconvergence {

namespace {

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
    volumes.push_back(claim_json(v));
  o["volumes"] = std::move(volumes);
  add_placement_json(o, ex);
  o["coolOff"] = {{"period", format_go_duration(ex.cool_off.period)},
                  {"lastEviction", optional_time_json(ex.cool_off.last_eviction)},
                  {"eligibleAfter", optional_time_json(ex.cool_off.eligible_after)},
                  {"coolingOff", ex.cool_off.cooling_off},
                  {"thisRequest", ex.cool_off.this_request},
                  {"recordError", ex.cool_off.record_error}};
  o["budget"] = ex.budget;
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
    {"Node:", ex.node + (ex.best_score > 0 ? " (score " + score_text(ex) + ")" : "")},
    {"Scheduler:", scheduler_line(ex)},
    {"Owner:", owner_line(ex.owner)},
    {"Verdict:", ex.verdict},
    {"Disposition:", ex.disposition},
    {"Reason:", ex.reason},
    {"Best nodes:", best_nodes_text(ex)},
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
      rows.push_back(claim_cells(v));
    out += "Volumes:\n" + render_text_table(std::move(rows), "  ");
  }
  return out + nodes_section(ex.nodes);
}

std::string render_pod_explanations_table(const std::vector<pod_explanation>& all) {
  std::vector<std::vector<std::string>> rows{{"NAMESPACE", "NAME", "NODE", "OWNER", "VERDICT",
                                              "SCORE", "DISPOSITION", "TARGETS", "BUDGET", "WHY"}};
  for (const auto& ex : all)
    rows.push_back({ex.namespace_, ex.name, ex.node, owner_column(ex), ex.verdict, score_text(ex),
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
