// `schedopt plan` output: what the evaluator decided for each VMI, without migrating.
#include "model/kinds/vm_hyperconvergence/plan_report.hpp"

#include <nlohmann/json.hpp>

#include "model/text_table.hpp"

namespace schedopt {

namespace {

std::string skip_column(const vmi_evaluation& ev) {
  if (ev.disp == disposition::outstanding)
    return "(outstanding: over maxNonHyperconvergedPerRun)";
  return ev.reason;
}

} // namespace

std::string render_plan_table(const evaluation_result& r) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"NAMESPACE", "NAME", "NODE", "VERDICT", "TARGETS", "SKIP REASON"});
  for (const auto& ev : r.vmis)
    rows.push_back(
      {ev.namespace_, ev.name, ev.node, ev.verdict, join(ev.target_nodes), skip_column(ev)});
  return render_text_table(std::move(rows));
}

std::string render_plan_json(const evaluation_result& r) {
  auto arr = nlohmann::json::array();
  for (const auto& ev : r.vmis) {
    nlohmann::json o;
    o["namespace"] = ev.namespace_;
    o["name"] = ev.name;
    o["node"] = ev.node;
    o["verdict"] = ev.verdict;
    o["disposition"] = to_string(ev.disp);
    o["bestNodes"] = ev.best_nodes;
    o["targetNodes"] = ev.target_nodes;
    o["skipReason"] = ev.reason;
    arr.push_back(std::move(o));
  }
  return arr.dump(2) + "\n";
}

} // namespace schedopt
