// Core (pods and their workloads included), KubeVirt and SchedulingOptimization types with the attributes real clusters serve.
#include "sim/world_types.hpp"

#include "sim/longhorn.hpp"
#include "sim/object_store.hpp"

namespace schedopt::sim {

void register_world_types(object_store& store) {
  auto add = [&](resource_type t) {
    if (!store.find_type(t.key()))
      store.register_type(t);
  };
  add({"", "v1", "Node", "nodes", "node", "NodeList", false, true, {"no"}, {}});
  add({"", "v1", "Namespace", "namespaces", "namespace", "NamespaceList", false, true, {"ns"}, {}});
  add({"", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", "persistentvolumeclaim",
       "PersistentVolumeClaimList", true, true, {"pvc"}, {}});
  add({"", "v1", "PersistentVolume", "persistentvolumes", "persistentvolume", "PersistentVolumeList", false,
       true, {"pv"}, {}});
  add({"", "v1", "Event", "events", "event", "EventList", true, false, {"ev"}, {}});
  add({"", "v1", "Pod", "pods", "pod", "PodList", true, true, {"po"}, {"all"}});
  add({"apps", "v1", "StatefulSet", "statefulsets", "statefulset", "StatefulSetList", true, true, {"sts"}, {"all"}});
  add({"apps", "v1", "ReplicaSet", "replicasets", "replicaset", "ReplicaSetList", true, true, {"rs"}, {"all"}});
  add({"apps", "v1", "DaemonSet", "daemonsets", "daemonset", "DaemonSetList", true, true, {"ds"}, {"all"}});
  add({"batch", "v1", "Job", "jobs", "job", "JobList", true, true, {}, {"all"}});
  add({"policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", "poddisruptionbudget",
       "PodDisruptionBudgetList", true, true, {"pdb"}, {}});
  add({"kubevirt.io", "v1", "VirtualMachineInstance", "virtualmachineinstances", "virtualmachineinstance",
       "VirtualMachineInstanceList", true, false, {"vmi", "vmis"}, {"all"}});
  add({"kubevirt.io", "v1", "VirtualMachineInstanceMigration", "virtualmachineinstancemigrations",
       "virtualmachineinstancemigration", "VirtualMachineInstanceMigrationList", true, true,
       {"vmim", "vmims"}, {"all"}});
  add({"kubevirt.io", "v1", "VirtualMachine", "virtualmachines", "virtualmachine", "VirtualMachineList", true,
       true, {"vm", "vms"}, {"all"}});
  add({"stork.libopenstorage.org", "v1alpha1", "SchedulingOptimization", "schedulingoptimizations",
       "schedulingoptimization", "SchedulingOptimizationList", false, true, {"schedopt"}, {}});
  register_longhorn_types(store);
}

} // namespace schedopt::sim
