// POST .../pods/<name>/eviction as kube-apiserver answers it: KubeVirt's validating
// webhook for virt-launcher pods first, then the eviction REST storage, which checks the
// pod's PodDisruptionBudget, decrements it atomically and deletes the pod gracefully.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace schedopt::sim {

class object_store;

struct eviction_request {
  std::string ns;
  std::string name; // from the URL
  nlohmann::json body; // the policy/v1 (or v1beta1) Eviction
  bool dry_run = false; // ?dryRun=All
};

/// The answer, and what the audit keeps of the decision.
struct eviction_outcome {
  int code = 0;
  nlohmann::json body; // a metav1.Status
  int retry_after_seconds = 0; // > 0: the Retry-After header apiserver writes
  /// Short name of the branch taken: Evicted, DisruptionBudget, BudgetNotObserved,
  /// MultipleBudgets, NotFound, Denied (KubeVirt's webhook), Forbidden, BadRequest.
  std::string outcome;
  std::string pod_uid;
  std::string node;  // the pod's spec.nodeName when decided
  bool pod_ready = false;
  std::string pdb;   // the one PodDisruptionBudget consulted ("" when none)
  /// The PDB's status.disruptionsAllowed when the decision was made (under the same
  /// lock as the decrement); empty when no PDB was consulted.
  std::optional<int64_t> disruptions_allowed;
  bool budget_decremented = false;
  bool dry_run = false;
};

/// kubernetes pkg/registry/core/pod/storage/eviction.go EvictionREST.Create, preceded by
/// kubevirt's virt-launcher-eviction-interceptor webhook (pod-eviction-admitter.go Admit)
/// for a pod labelled kubevirt.io=virt-launcher.
eviction_outcome evict_pod(object_store& store, const eviction_request& request);

/// metav1.Status of a successful eviction (createHandler fills code 201).
nlohmann::json eviction_success_status();

} // namespace schedopt::sim
