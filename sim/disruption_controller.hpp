// kube-controller-manager's disruption controller for the simulated cluster: keeps every
// PodDisruptionBudget's status (currentHealthy, desiredHealthy, expectedPods,
// disruptionsAllowed, disruptedPods, observedGeneration, the DisruptionAllowed condition)
// from minAvailable / maxUnavailable over the pods its selector matches, recomputed
// whenever a pod or a budget changes, and when an eviction's disruptedPods entry expires.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>

namespace schedopt::sim {

class object_store;

class disruption_controller {
public:
  /// Observes pods, budgets and the workload kinds of `store` from now on.
  explicit disruption_controller(object_store& store);

  /// Recomputes every budget when something changed since the last pass or a recheck
  /// is due at `now`.
  void tick(std::chrono::system_clock::time_point now);

  /// disruption.go DeletionTimeout: how long an evicted pod stays in disruptedPods
  /// without being deleted before the controller counts it again.
  static constexpr std::chrono::minutes deletion_timeout{2};

private:
  object_store& store_;
  std::shared_ptr<std::atomic<bool>> dirty_ = std::make_shared<std::atomic<bool>>(true);
  std::optional<std::chrono::system_clock::time_point> recheck_at_;
};

} // namespace schedopt::sim
