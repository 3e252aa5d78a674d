// podHyperconvergence's per-pod results and the "<Kind>: <detail>" reasons they carry
// (docs/design.md §9): the same rules as the VM kind's (first ": " splits, 256 bytes
// at most on a UTF-8 boundary), with the kinds this kind adds.
#pragma once

#include <string>
#include <string_view>

namespace schedopt::pod_hyperconvergence {

/// status.podHyperconvergence.details[].status.
enum class pod_result { successful, skipped, failed };

/// The reason kinds, in the order the filters apply them (docs/design.md §9), then the
/// engine's.
enum class pod_reason {
  opted_out,
  no_controller,
  scheduler_not_storage_aware,
  cooling_off,
  no_target_node,
  disruption_budget,
  evaluation_error,
  rescheduled_off_replica,
  replacement_not_ready,
  eviction_failed,
};

/// "Successful", "Skipped", "Failed".
std::string_view to_wire(pod_result r);
/// "OptedOut", "NoController", "SchedulerNotStorageAware", ...
std::string_view to_wire(pod_reason r);

/// "<Kind>: <detail>" (the kind alone without detail), capped at max_reason_bytes on a
/// UTF-8 boundary (model/reason.hpp).
std::string make_pod_reason(pod_reason kind, std::string_view detail);

} // namespace schedopt::pod_hyperconvergence
