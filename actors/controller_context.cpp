// Helpers shared by the controller actors.
#include "actors/controller_context.hpp"

namespace schedopt {

namespace {

template <class Uid>
object_reference reference_to(const char* api_version, const char* kind,
                              const basic_meta<Uid>& m) {
  object_reference ref;
  ref.api_version = api_version;
  ref.kind = kind;
  ref.name = m.name;
  ref.namespace_ = m.namespace_;
  ref.uid = m.uid;
  ref.resource_version = m.resource_version;
  return ref;
}

} // namespace

object_reference request_reference(const scheduling_optimization& so) {
  return reference_to("stork.libopenstorage.org/v1alpha1", "SchedulingOptimization", so.metadata);
}

object_reference vmi_reference(const virtual_machine_instance& vmi) {
  return reference_to("kubevirt.io/v1", "VirtualMachineInstance", vmi.metadata);
}

} // namespace schedopt
