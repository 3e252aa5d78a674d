// Helpers shared by the controller actors.
#include "actors/controller_context.hpp"

namespace schedopt {

object_reference request_reference(const scheduling_optimization& so) {
  object_reference ref;
  ref.api_version = "stork.libopenstorage.org/v1alpha1";
  ref.kind = "SchedulingOptimization";
  ref.name = so.metadata.name;
  ref.uid = so.metadata.uid;
  ref.resource_version = so.metadata.resource_version;
  return ref;
}

object_reference vmi_reference(const virtual_machine_instance& vmi) {
  object_reference ref;
  ref.api_version = "kubevirt.io/v1";
  ref.kind = "VirtualMachineInstance";
  ref.name = vmi.metadata.name;
  ref.namespace_ = vmi.metadata.namespace_;
  ref.uid = vmi.metadata.uid;
  ref.resource_version = vmi.metadata.resource_version;
  return ref;
}

} // namespace schedopt
