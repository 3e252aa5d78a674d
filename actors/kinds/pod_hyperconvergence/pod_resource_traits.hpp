// What the Kubernetes side knows of the pod kind's watched types (k8s/resource_traits.hpp
// does the same for the core's): the resource each informer lists and watches, and its
// kind. The resources themselves stay in k8s/api_types.hpp: the shared Eviction call
// names the pods resource too.
#pragma once

#include <string_view>

#include "k8s/api_types.hpp"
#include "k8s/resource_traits.hpp"
#include "model/kinds/pod_hyperconvergence/pod_objects.hpp"

namespace schedopt::k8s {

template <>
struct resource_traits<pod_hyperconvergence::pod> {
  static const k8s::resource& resource() { return resources::pods; }
  static constexpr std::string_view kind = "Pod";
};

template <>
struct resource_traits<pod_hyperconvergence::stateful_set> {
  static const k8s::resource& resource() { return resources::stateful_sets; }
  static constexpr std::string_view kind = "StatefulSet";
};

template <>
struct resource_traits<pod_hyperconvergence::replica_set> {
  static const k8s::resource& resource() { return resources::replica_sets; }
  static constexpr std::string_view kind = "ReplicaSet";
};

template <>
struct resource_traits<pod_hyperconvergence::pod_disruption_budget> {
  static const k8s::resource& resource() { return resources::pod_disruption_budgets; }
  static constexpr std::string_view kind = "PodDisruptionBudget";
};

} // namespace schedopt::k8s
