// What the Kubernetes side knows of a watched model type (model/watched_types.hpp; a
// kind's own watched types have theirs in the kind's folder): the REST resource its
// informer lists and watches, and its kind. An informer of a type without traits does
// not compile.
#pragma once

#include <string_view>

#include "k8s/api_types.hpp"
#include "model/watched_types.hpp"

namespace schedopt::k8s {

/// `resource()`: the resource an informer of T lists and watches (its plural also
/// labels the informer's metrics and logs); `kind`: the object's kind, to name it to a
/// person.
template <class T>
struct resource_traits;

template <>
struct resource_traits<scheduling_optimization> {
  static const k8s::resource& resource() { return resources::scheduling_optimizations; }
  static constexpr std::string_view kind = "SchedulingOptimization";
};

template <>
struct resource_traits<virtual_machine_instance> {
  static const k8s::resource& resource() { return resources::vmis; }
  static constexpr std::string_view kind = "VirtualMachineInstance";
};

template <>
struct resource_traits<virtual_machine_instance_migration> {
  static const k8s::resource& resource() { return resources::vmims; }
  static constexpr std::string_view kind = "VirtualMachineInstanceMigration";
};

template <>
struct resource_traits<virtual_machine> {
  static const k8s::resource& resource() { return resources::vms; }
  static constexpr std::string_view kind = "VirtualMachine";
};

template <>
struct resource_traits<persistent_volume_claim> {
  static const k8s::resource& resource() { return resources::pvcs; }
  static constexpr std::string_view kind = "PersistentVolumeClaim";
};

template <>
struct resource_traits<persistent_volume> {
  static const k8s::resource& resource() { return resources::pvs; }
  static constexpr std::string_view kind = "PersistentVolume";
};

template <>
struct resource_traits<node> {
  static const k8s::resource& resource() { return resources::nodes; }
  static constexpr std::string_view kind = "Node";
};

template <>
struct resource_traits<longhorn_replica> {
  static const k8s::resource& resource() { return resources::longhorn_replicas; }
  static constexpr std::string_view kind = "Replica";
};

template <>
struct resource_traits<kubevirt_cr> {
  static const k8s::resource& resource() { return resources::kubevirts; }
  static constexpr std::string_view kind = "KubeVirt";
};

} // namespace schedopt::k8s
