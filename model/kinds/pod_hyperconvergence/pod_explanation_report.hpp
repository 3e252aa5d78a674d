// docs/cli.md `schedopt explain --kind podHyperconvergence` output, shaped as every
// kind's: `-o json` for machines
// (one object, or a List of them for --all), text for people (a describe-style page for
// one pod, a table with one row per misplaced or skipped pod for --all).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/error.hpp"
#include "model/kinds/pod_hyperconvergence/pod_explanation.hpp"

namespace schedopt::pod_hyperconvergence {

/// `{"kind":"PodExplanation", "namespace", "name", "phase", "node", "scheduler",
/// "storageAwareScheduler", "considered", "notConsideredWhy", "owner"{"kind", "name",
/// "counts", "whyNot", "replicas"}, "verdict", "disposition", "reason",
/// "evaluationError", "volumes"[{"claim", "persistentVolume", "driverOwned",
/// "replicaNodes", "problem"}], "currentScore", "bestScore", "bestNodes", "targetNodes",
/// "nodes"[{"name", "score", "current", "best", "found", "allowed", "target", "result",
/// "rules"[{"rule", "passed", "detail"}], "allocatable", "used"}], "coolOff"{"period",
/// "lastEviction", "eligibleAfter", "coolingOff", "thisRequest", "recordError"},
/// "budget", "perRunCap"{"maxNonHyperconvergedPerRun", "position", "deferred"}}`.
nlohmann::json pod_explanation_json(const pod_explanation& ex);

/// One explanation pretty-printed, or `{"kind":"List","items":[...]}`, newline-ended.
std::string render_pod_explanation_json(const pod_explanation& ex);
std::string render_pod_explanations_json(const std::vector<pod_explanation>& all);

/// The describe-style page: fields, then volume and node tables.
std::string render_pod_explanation_text(const pod_explanation& ex);

/// NAMESPACE, NAME, NODE, OWNER, VERDICT, SCORE, DISPOSITION, TARGETS, BUDGET, WHY: one
/// row per pod.
std::string render_pod_explanations_table(const std::vector<pod_explanation>& all);

/// The command's output for `key` ("<namespace>/<name>"; "" for every misplaced or
/// skipped pod) as `output` ("table" or "json"); a not_found error
/// `pod "<ns>/<name>" not found` when the key names no pod.
expected<std::string> render_pod_explain(const std::string& output, const std::string& key,
                                         const pod_explainer& why);

} // namespace schedopt::pod_hyperconvergence
