// `schedopt plan` for pods (and a dry run's log): what the pod evaluation decided for each
// considered pod, for people (aligned table) or machines (JSON array), as plan renders
// the VM kind's (model/plan_report.hpp).
#pragma once

#include <string>

#include "model/kinds/pod_hyperconvergence/pod_evaluation.hpp"

namespace schedopt::pod_hyperconvergence {

/// Columns NAMESPACE, NAME, NODE, OWNER, VERDICT, TARGETS, SKIP REASON, one row per
/// considered pod, "-" for empty cells.
std::string render_pod_plan_table(const evaluation_result& r);

/// `[{"namespace","name","node","owner","scheduler","verdict","disposition","bestNodes",
/// "targetNodes","skipReason"}...]`, pretty-printed with a trailing newline.
std::string render_pod_plan_json(const evaluation_result& r);

} // namespace schedopt::pod_hyperconvergence
