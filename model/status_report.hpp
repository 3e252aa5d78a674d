// `schedopt status`: the SchedulingOptimization requests as `kubectl get
// schedulingoptimizations` lists them (the CRD's printer columns), plus the progress of
// every request not yet Final, rendered as a table or JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/objects.hpp"
#include "model/timestamp.hpp"

namespace schedopt {

/// A running request's candidates by outcome so far. Migrated, failed and skipped are
/// the status counters (summed over every kind's block); the status holds no count of the VMs still moving, so those come
/// from the VMIMs the request created: pending while KubeVirt has not taken one up yet
/// (phase empty or Pending, waiting for a slot in its queue), in flight from then until
/// a final phase. Candidates still in schedopt's own queue have no VMIM and are not seen.
struct request_progress {
  int64_t migrated = 0;
  int64_t failed = 0;
  int64_t skipped = 0;
  int64_t in_flight = 0;
  int64_t pending = 0;
  /// False when the VMIMs could not be listed: in flight and pending are then unknown,
  /// and shown so rather than as zero.
  bool migrations_listed = true;
};

/// Progress of `request` from its status and `migrations`, the VMIMs labelled with its
/// uid (others are ignored, so any list may be passed).
request_progress progress_of(const scheduling_optimization& request,
                             const std::vector<virtual_machine_instance_migration>& migrations);

struct status_entry {
  scheduling_optimization request;
  std::optional<request_progress> progress; // set for a request not yet Final
};

/// kubectl's age format (k8s.io/apimachinery duration.HumanDuration): "45s", "3m20s",
/// "2d4h"; "<invalid>" more than a second in the future, "<unknown>" when unparseable.
std::string human_age(const std::string& created, timestamp now);

/// NAME, STAGE, STATUS, SUCCESSFUL, FAILED, SKIPPED, AGE (the CRD's printer columns; the
/// counters summed over every kind's block, empty when there is none), one row per request in the given order, "-" for an empty cell; then, per request with
/// progress, one line `<name> (<stage>): N migrated, N failed, N skipped, N in flight,
/// N pending` (`in flight and pending unknown` when the VMIMs were not listed). "No SchedulingOptimizations found." when there is none.
std::string render_status_table(const std::vector<status_entry>& entries, timestamp now);

/// `[{"name","uid","stage","status","reason","successful","failed","skipped",
/// "creationTimestamp","startTimestamp","finishTimestamp","progress"?}...]`, progress
/// `{"migrated","failed","skipped","inFlight","pending"}` only while not Final (the last
/// two null when unknown).
std::string render_status_json(const std::vector<status_entry>& entries);

} // namespace schedopt
