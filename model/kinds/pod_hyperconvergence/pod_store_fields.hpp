// What the informers of the pod kind's types keep (model/store_fields.hpp does the same
// for the VM kind's): found by argument-dependent lookup from the informer, so each
// stored object holds only what a decision reads.
#pragma once

#include "model/kinds/pod_hyperconvergence/pod_objects.hpp"
#include "model/store_fields.hpp"

namespace schedopt::pod_hyperconvergence {

/// Pods: no annotations (nothing of the kind reads a pod's; the cool-off record is on
/// its owner), and of the conditions only Ready and PodScheduled (readiness, and why a
/// replacement is not scheduled), without their transition times.
void keep_decision_fields(pod& p, const kept_fields& kept);

/// StatefulSets and ReplicaSets: the `kept` annotations only (the cool-off record's two
/// keys); labels stay (the opt-out label).
void keep_decision_fields(stateful_set& s, const kept_fields& kept);
void keep_decision_fields(replica_set& s, const kept_fields& kept);

/// PodDisruptionBudgets are few and read whole.
inline void keep_decision_fields(pod_disruption_budget&, const kept_fields&) {}

} // namespace schedopt::pod_hyperconvergence
