// `schedopt plan` for pods (and a dry run's log): what the pod evaluation decided for each
// considered pod, for people (aligned table) or machines (JSON array), as plan renders
// the VM kind's (model/plan_report.hpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/kinds/pod_hyperconvergence/pod_evaluation.hpp"

namespace schedopt::pod_hyperconvergence {

/// What the budgets covering each pod say, by "<ns>/<name>", for the plan's BUDGET column:
/// `db (allows 1)`, `db (allows 0)`, or for a pod under two or more `db, db-quorum (more
/// than one: evictions answer 500)`. Pods no budget covers are absent. The eviction
/// subresource weighs the budget when it is asked; this is what the informer saw.
std::map<std::string, std::string>
budgets_by_pod(const shared_list<pod>& pods, const std::vector<pod_disruption_budget>& budgets);

/// Columns NAMESPACE, NAME, NODE, OWNER, VERDICT, TARGETS, BUDGET, SKIP REASON, one row
/// per considered pod, "-" for empty cells.
std::string render_pod_plan_table(const evaluation_result& r,
                                  const std::map<std::string, std::string>& budgets = {});

/// `[{"namespace","name","node","owner","scheduler","verdict","disposition","bestNodes",
/// "targetNodes","budget","skipReason"}...]`, pretty-printed with a trailing newline.
std::string render_pod_plan_json(const evaluation_result& r,
                                 const std::map<std::string, std::string>& budgets = {});

} // namespace schedopt::pod_hyperconvergence
