// inspect() for the pod kind's model structs (model/kinds/pod_hyperconvergence/
// pod_objects.hpp), so its informers can carry them in CAF messages. Found by
// argument-dependent lookup, so they live in the structs' namespace.
#pragma once

#include <caf/meta/type_name.hpp>

#include "actors/model_inspect.hpp"
#include "model/kinds/pod_hyperconvergence/pod_objects.hpp"

namespace schedopt::pod_hyperconvergence {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, label_requirement& x) {
  return f(caf::meta::type_name("label_requirement"), x.key, x.op, x.values);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, label_selector& x) {
  return f(caf::meta::type_name("label_selector"), x.present, x.match_labels,
           x.match_expressions);
}

// Scheduling constraints and requests travel with the object (messages stay in the
// process and are copied, never serialized); like the VMI's, they are left out here.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pod& x) {
  return f(caf::meta::type_name("pod"), x.metadata, x.node_name, x.scheduler_name,
           x.claim_names, x.phase, x.conditions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stateful_set& x) {
  return f(caf::meta::type_name("stateful_set"), x.metadata, x.replicas, x.selector,
           x.ready_replicas);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, replica_set& x) {
  return f(caf::meta::type_name("replica_set"), x.metadata, x.replicas, x.selector,
           x.ready_replicas);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pod_disruption_budget& x) {
  return f(caf::meta::type_name("pod_disruption_budget"), x.metadata, x.selector,
           x.min_available, x.max_unavailable, x.unhealthy_pod_eviction_policy,
           x.observed_generation, x.disruptions_allowed, x.current_healthy, x.desired_healthy,
           x.expected_pods);
}

} // namespace schedopt::pod_hyperconvergence
