// docs/cli.md `schedopt explain` output, as kubectl shapes its own: `-o json` for machines
// (one object, or a List of them for --all), text for people (a describe-style page
// for one VMI, a table with one row per misplaced VMI for --all).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/error.hpp"
#include "model/kinds/vm_hyperconvergence/explanation.hpp"

namespace schedopt {

/// `{"kind":"VMIExplanation", "namespace", "name", "phase", "node", "considered",
/// "verdict", "disposition", "reason", "evaluationError", "volumes"[], "currentScore",
/// "bestScore", "bestNodes", "targetNodes", "targetScore", "nodes"[{"name", "score",
/// "current", "found", "allowed", "target", "result", "rules"[{"rule", "passed",
/// "detail"}], "allocatable", "used"}], "coolOff", "migrationsInFlight"[],
/// "nextRequest" (null: none pending), "perRunCap"}`.
nlohmann::json explanation_json(const vmi_explanation& ex);

/// One explanation pretty-printed, or `{"kind":"List","items":[...]}`, newline-ended.
std::string render_explanation_json(const vmi_explanation& ex);
std::string render_explanations_json(const std::vector<vmi_explanation>& all);

/// The describe-style page: fields, then volume and node tables.
std::string render_explanation_text(const vmi_explanation& ex);

/// NAMESPACE, NAME, NODE, VERDICT, SCORE, DISPOSITION, TARGETS, WHY: one row per VMI.
std::string render_explanations_table(const std::vector<vmi_explanation>& all);

/// The command's output for `query`; a not_found error
/// `virtualmachineinstance "<ns>/<name>" not found` when the key names no VMI.
expected<std::string> render_explain(const explain_query& query, const explainer& why);

} // namespace schedopt
