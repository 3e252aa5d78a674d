// The migration engine's supervisor for one run: an in-flight buffer of
// maxParallelMigrations slots (a backpressure hint; KubeVirt queues beyond its own cap),
// cool-off enforcement and target choice (fewest schedopt migrations inbound).
#pragma once

#include "actors/controller_context.hpp"
#include "model/duration.hpp"

namespace schedopt {

struct supervisor_options {
  std::size_t parallelism = 5; // effective, already clamped
  bool pin_target_node = true;
  duration cool_off_period = std::chrono::hours(1);
  /// Where an unpinned run is said (Warning TargetPinningUnsupported on the request).
  event_recorder_actor events;
  object_reference request;
};

supervisor_actor spawn_supervisor(caf::local_actor* parent, supervisor_options options);

} // namespace schedopt
