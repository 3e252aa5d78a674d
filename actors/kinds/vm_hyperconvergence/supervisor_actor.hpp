// The migration engine's supervisor for one run: an in-flight buffer of
// maxParallelMigrations slots (a backpressure hint; KubeVirt queues beyond its own cap),
// KubeVirt's per-source-node cap, yielding to KubeVirt's own waiting migrations,
// cool-off enforcement and target choice (fewest schedopt migrations inbound).
#pragma once

#include "actors/controller_context.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_actors.hpp"
#include "model/duration.hpp"

namespace schedopt {

struct supervisor_options {
  std::size_t parallelism = 5; // effective, already clamped
  /// maxParallelMigrations came from the request or a configured default: not capped
  /// by KubeVirt's parallelMigrationsPerCluster.
  bool parallelism_explicit = false;
  bool pin_target_node = true;
  /// Hold admissions while KubeVirt's own migrations wait for a slot (yieldToKubevirt).
  yield_mode yield_to_kubevirt = yield_mode::automatic;
  duration cool_off_period = std::chrono::hours(1);
  /// Where an unpinned run is said (Warning TargetPinningUnsupported on the request).
  event_recorder_actor events;
  object_reference request;
  /// KubeVirt's configuration and waiting migrations; unset: none followed (admission
  /// starts at once, bounded by `parallelism` only).
  kubevirt_policy_actor kubevirt;
};

supervisor_actor spawn_supervisor(caf::local_actor* parent, supervisor_options options);

} // namespace schedopt
