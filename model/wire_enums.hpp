// The enums of a request's status and of a run's end, and their names on the wire (the
// CRD's enum values, docs/design.md §1.5, §2.6, §3.6) in one table: code compares
// enums, and only encoders, decoders and printers meet the text.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace schedopt {

/// status.stage.
enum class request_stage : uint8_t {
  none,       // "": new, not yet seen
  pending,    // queued behind an earlier request
  evaluating, // promoted; classifying VMIs
  migrating,  // the migration engine runs candidates
  final_,     // done; never touched again
  /// Text this build does not name (an old or hand-edited CRD lets anything in): not
  /// new, not running, not final, so it keeps its place in the queue and is promoted
  /// like a Pending request. Written and shown as "Unknown".
  unknown,
};

/// status.status.
enum class request_status : uint8_t {
  none, // "": not yet seen
  pending,
  in_progress,
  successful,
  partial_success,
  failed,
  unknown, // text this build does not name; written and shown as "Unknown"
};

/// status.<kind>.details[].status: one workload's result.
enum class detail_status : uint8_t {
  successful,
  skipped,
  failed,
  unknown, // text this build does not name; counts as neither skipped nor successful
};

/// The "<Kind>" a per-workload reason "<Kind>: <detail>" opens with (model/reason.hpp).
enum class reason_kind : uint8_t {
  opted_out,
  not_live_migratable,
  migration_in_progress,
  cooling_off,
  no_target_node,
  evaluation_error,
  migration_run_failed,
  migration_timed_out,
  migration_create_failed,
  backup_in_progress,
};

/// What failed a run as a whole (docs/design.md §1.5): the request's spec, the storage
/// driver, the Kubernetes API past retries, or schedopt itself. Carried beside the
/// reason, so no code reads the kind back out of the text.
enum class run_failure_kind : uint8_t {
  invalid_spec,
  driver,
  api,
  internal,
};

/// The name on the wire.
std::string_view to_wire(request_stage x);
std::string_view to_wire(request_status x);
std::string_view to_wire(detail_status x);
std::string_view to_wire(reason_kind x);

/// The enum a wire name stands for; `unknown` for any other text (never an error: an
/// object the API server holds must still decode).
template <class Enum>
Enum from_wire(std::string_view text);
template <>
request_stage from_wire<request_stage>(std::string_view text);
template <>
request_status from_wire<request_status>(std::string_view text);
template <>
detail_status from_wire<detail_status>(std::string_view text);

/// Logs, CAF's message printer and test diagnostics: the wire name (run failure kinds,
/// which have none, by their enumerator's name).
std::string to_string(request_stage x);
std::string to_string(request_status x);
std::string to_string(detail_status x);
std::string to_string(reason_kind x);
std::string to_string(run_failure_kind x);
std::ostream& operator<<(std::ostream& out, request_stage x);
std::ostream& operator<<(std::ostream& out, request_status x);
std::ostream& operator<<(std::ostream& out, detail_status x);
std::ostream& operator<<(std::ostream& out, reason_kind x);
std::ostream& operator<<(std::ostream& out, run_failure_kind x);

/// A stage in which a run is under way (and may be resumed): Evaluating or Migrating.
inline bool is_running(request_stage x) {
  return x == request_stage::evaluating || x == request_stage::migrating;
}

} // namespace schedopt
