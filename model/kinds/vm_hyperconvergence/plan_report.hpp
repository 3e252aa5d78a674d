// docs/cli.md `schedopt plan`: an evaluation rendered for people (aligned table) or
// machines (JSON array).
#pragma once

#include <string>

#include "model/kinds/vm_hyperconvergence/evaluation.hpp"

namespace schedopt {

/// Columns NAMESPACE, NAME, NODE, VERDICT, TARGETS, SKIP REASON, one row per considered
/// VMI, space-aligned, "-" for empty cells, ending with a newline.
std::string render_plan_table(const evaluation_result& r);

/// `[{"namespace","name","node","verdict","disposition","bestNodes","targetNodes",
/// "skipReason"}...]`, pretty-printed with a trailing newline.
std::string render_plan_json(const evaluation_result& r);

} // namespace schedopt
