// What the pod evaluation decided for each pod, without evicting (see pod_plan_report.hpp).
#include "model/kinds/pod_hyperconvergence/pod_plan_report.hpp"

#include <nlohmann/json.hpp>

#include "model/text_table.hpp"

namespace schedopt::pod_hyperconvergence {

namespace {

std::string skip_column(const pod_evaluation& ev) {
  if (ev.disp == pod_disposition::outstanding)
    return "(outstanding: over maxNonHyperconvergedPerRun)";
  return ev.reason;
}

std::string owner_column(const pod_evaluation& ev) {
  return ev.owner ? std::string(to_string(ev.owner->kind)) + "/" + ev.owner->name : "";
}

std::string budget_column(const pod_evaluation& ev, const std::map<std::string, std::string>& budgets) {
  auto i = budgets.find(pod_key(ev.namespace_, ev.name));
  return i == budgets.end() ? "" : i->second;
}

} // namespace

std::map<std::string, std::string>
budgets_by_pod(const shared_list<pod>& pods, const std::vector<pod_disruption_budget>& budgets) {
  std::map<std::string, std::string> out;
  for (const auto& p : pods) {
    auto covering = covering_budgets(*p, budgets);
    if (covering.empty())
      continue;
    std::string text;
    for (const auto* b : covering)
      text += (text.empty() ? "" : ", ") + b->metadata.name;
    text += covering.size() == 1
              ? " (allows " + std::to_string(covering.front()->disruptions_allowed) + ")"
              : " (more than one: evictions answer 500)";
    out.emplace(pod_key(p->metadata.namespace_, p->metadata.name), std::move(text));
  }
  return out;
}

std::string render_pod_plan_table(const evaluation_result& r,
                                  const std::map<std::string, std::string>& budgets) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back(
    {"NAMESPACE", "NAME", "NODE", "OWNER", "VERDICT", "TARGETS", "BUDGET", "SKIP REASON"});
  for (const auto& ev : r.pods)
    rows.push_back({ev.namespace_, ev.name, ev.node, owner_column(ev), ev.verdict,
                    join(ev.target_nodes), budget_column(ev, budgets), skip_column(ev)});
  return render_text_table(std::move(rows));
}

std::string render_pod_plan_json(const evaluation_result& r,
                                 const std::map<std::string, std::string>& budgets) {
  auto arr = nlohmann::json::array();
  for (const auto& ev : r.pods) {
    nlohmann::json o;
    o["namespace"] = ev.namespace_;
    o["name"] = ev.name;
    o["node"] = ev.node;
    o["owner"] = owner_column(ev);
    o["scheduler"] = ev.scheduler;
    o["verdict"] = ev.verdict;
    o["disposition"] = to_string(ev.disp);
    o["bestNodes"] = ev.best_nodes;
    o["targetNodes"] = ev.target_nodes;
    o["budget"] = budget_column(ev, budgets);
    o["skipReason"] = ev.reason;
    arr.push_back(std::move(o));
  }
  return arr.dump(2) + "\n";
}

} // namespace schedopt::pod_hyperconvergence
