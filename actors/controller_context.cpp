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

} // namespace schedopt
