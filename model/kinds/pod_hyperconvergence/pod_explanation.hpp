// docs/cli.md `schedopt explain --kind podHyperconvergence`: why one pod is or is not
// evicted, assembled from the inputs and the result of the evaluation that decides
// (pod_evaluation.hpp evaluate()) and from the rules that admit a node
// (pod_admission.hpp), so the explanation cannot disagree with the decision. Pure: the
// caller gathers, this file only reads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/kinds/pod_hyperconvergence/pod_evaluation.hpp"
#include "model/placement/placement_explanation.hpp"

namespace schedopt::pod_hyperconvergence {

/// The pod's controller and whether its evicted pod comes back as schedopt predicts.
struct owner_explanation {
  std::string kind; // "StatefulSet", "ReplicaSet", another controller's kind, "" for none
  std::string name;
  bool counts = false; // a StatefulSet or ReplicaSet that exists, alive, scaled above 0
  /// Why it does not count: "no controller", "controlled by DaemonSet agent",
  /// "StatefulSet db is being deleted", "StatefulSet db is scaled to 0",
  /// `statefulsets.apps "db" not found`.
  std::string why_not;
  int64_t replicas = 0; // spec.replicas when found
};

/// The workload's record (pod_cool_off.hpp), as the evaluation read it.
struct pod_cool_off_explanation {
  duration period{};
  std::optional<timestamp> last_eviction; // the owner's record, if any
  std::optional<timestamp> eligible_after;
  bool cooling_off = false;  // the record holds the pod back now
  bool this_request = false; // this request wrote the record: it never holds its pods back
  std::string record_error;  // a record that does not parse (ignored, as evaluate() does)
};

/// The placement facts (scores, best and target nodes, each node — `best` the only level
/// that counts for pods —, the per-run cap) are the base's, shared with every kind.
struct pod_explanation : placement_explanation {
  std::string namespace_;
  std::string name;
  std::string phase;
  std::string node;
  std::string scheduler;         // spec.schedulerName, defaulted
  bool storage_aware_scheduler = false;
  bool considered = false;       // Running, bound, not terminating, not virt-launcher
  std::string not_considered_why; // "phase Pending", "not bound to a node", ...
  owner_explanation owner;
  std::string verdict;     // pod_evaluation::verdict; "not-considered" when not considered
  std::string disposition; // to_string(pod_disposition)
  std::string reason;      // the skip reason the evaluation gave, or ""
  std::string evaluation_error; // the claim or volume lookup that failed, if any
  std::vector<claim_explanation> volumes; // spec.volumes[].persistentVolumeClaim
  pod_cool_off_explanation cool_off;
  std::string budget; // budgets_by_pod()'s words, "" when no budget covers the pod
};

/// What the evaluation read and decided, plus what explain adds. Every reference must
/// outlive the explainer.
struct pod_explanation_sources {
  const evaluation_input& in;
  const evaluation_result& result;
  /// nullptr: not gathered; each volume is then its driver PV only (no claim).
  const sorted_objects<persistent_volume_claim>* pvcs = nullptr;
  const sorted_objects<persistent_volume>* pvs = nullptr;
  /// budgets_by_pod() (pod_plan_report.hpp), by "<ns>/<name>".
  const std::map<std::string, std::string>* budgets = nullptr;
};

class pod_explainer {
public:
  explicit pod_explainer(const pod_explanation_sources& sources);

  /// nullopt when `in.pods` has no pod `<namespace>/<name>`.
  std::optional<pod_explanation> explain(const std::string& key) const;

  /// Every considered pod that is misplaced (verdict semi, non or error) or skipped,
  /// sorted (namespace, name).
  std::vector<pod_explanation> explain_misplaced() const;

private:
  pod_explanation summary(const std::string& key, const pod& p) const;
  void explain_owner(const pod& p, pod_explanation& ex) const;
  void explain_volumes(const pod& p, pod_explanation& ex) const;
  void explain_cool_off(pod_explanation& ex) const;
  std::vector<node_explanation> nodes_of(const pod& p, const pod_explanation& ex) const;
  const object_meta* owner_meta(const workload_ref& w) const;

  const pod_explanation_sources& src_;
  std::map<std::string, const pod*> pods_;
  std::map<std::string, const pod_evaluation*> evaluations_;
  std::map<std::string, const pod_volumes*> volumes_;
  std::map<std::string, int64_t> positions_; // candidates every filter let through
  sorted_objects<stateful_set> stateful_sets_;
  sorted_objects<replica_set> replica_sets_;
};

/// Why a pod is not considered ("" when it is): the first of is_considered()'s tests
/// it fails.
std::string not_considered_why(const pod& p);

} // namespace schedopt::pod_hyperconvergence
