// kube-controller-manager's StatefulSet controller for the simulated cluster: keeps pods
// <set>-0 .. <set>-(replicas-1) in existence (a deleted or evicted pod comes back under
// the same name with a new uid), one at a time under OrderedReady, with their claims, and
// writes the set's status.
#pragma once

#include <chrono>

#include <nlohmann/json.hpp>

#include "sim/reaction_delay.hpp"

namespace schedopt::sim {

class object_store;

/// Pod `ordinal` of `set` as the controller creates it (stateful_set_utils.go
/// newVersionedStatefulSetPod): <set>-<ordinal>, its identity labels, hostname and
/// subdomain, and a volume per claim template bound to <template>-<set>-<ordinal>.
nlohmann::json statefulset_pod(const nlohmann::json& set, int ordinal);

/// getPersistentVolumeClaimName: <template>-<set>-<ordinal>.
std::string statefulset_claim_name(const nlohmann::json& set, const nlohmann::json& claim_template, int ordinal);

class statefulset_controller {
public:
  /// A missing pod is created `recreate_delay` after the controller first saw it missing.
  statefulset_controller(object_store& store, std::chrono::milliseconds recreate_delay);

  /// One pass over every StatefulSet as of `now`.
  void tick(std::chrono::system_clock::time_point now);

private:
  object_store& store_;
  reaction_delay create_delay_;
};

} // namespace schedopt::sim
