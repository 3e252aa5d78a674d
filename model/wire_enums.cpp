// The wire names of model/wire_enums.hpp. Each table lists every enumerator but
// `unknown`, which is whatever no entry matches.
#include "model/wire_enums.hpp"

#include <ostream>
#include <utility>

namespace schedopt {

namespace {

template <class Enum>
using wire_name = std::pair<Enum, std::string_view>;

constexpr std::string_view unknown_name = "Unknown";

constexpr wire_name<request_stage> stage_names[] = {
  {request_stage::none, ""},
  {request_stage::pending, "Pending"},
  {request_stage::evaluating, "Evaluating"},
  {request_stage::migrating, "Migrating"},
  {request_stage::final_, "Final"},
};

constexpr wire_name<request_status> status_names[] = {
  {request_status::none, ""},
  {request_status::pending, "Pending"},
  {request_status::in_progress, "InProgress"},
  {request_status::successful, "Successful"},
  {request_status::partial_success, "PartialSuccess"},
  {request_status::failed, "Failed"},
};

constexpr wire_name<detail_status> detail_status_names[] = {
  {detail_status::successful, "Successful"},
  {detail_status::skipped, "Skipped"},
  {detail_status::failed, "Failed"},
};

constexpr wire_name<reason_kind> reason_kind_names[] = {
  {reason_kind::opted_out, "OptedOut"},
  {reason_kind::not_live_migratable, "NotLiveMigratable"},
  {reason_kind::migration_in_progress, "MigrationInProgress"},
  {reason_kind::cooling_off, "CoolingOff"},
  {reason_kind::no_target_node, "NoTargetNode"},
  {reason_kind::evaluation_error, "EvaluationError"},
  {reason_kind::migration_run_failed, "MigrationRunFailed"},
  {reason_kind::migration_timed_out, "MigrationTimedOut"},
  {reason_kind::migration_create_failed, "MigrationCreateFailed"},
  {reason_kind::backup_in_progress, "BackupInProgress"},
};

constexpr wire_name<run_failure_kind> run_failure_kind_names[] = {
  {run_failure_kind::invalid_spec, "invalid_spec"},
  {run_failure_kind::driver, "driver"},
  {run_failure_kind::api, "api"},
  {run_failure_kind::internal, "internal"},
};

template <class Enum, std::size_t N>
std::string_view name_of(const wire_name<Enum> (&table)[N], Enum x) {
  for (const auto& [value, name] : table)
    if (value == x)
      return name;
  return unknown_name;
}

template <class Enum, std::size_t N>
Enum value_of(const wire_name<Enum> (&table)[N], std::string_view text) {
  for (const auto& [value, name] : table)
    if (name == text)
      return value;
  return Enum::unknown;
}

} // namespace

std::string_view to_wire(request_stage x) { return name_of(stage_names, x); }
std::string_view to_wire(request_status x) { return name_of(status_names, x); }
std::string_view to_wire(detail_status x) { return name_of(detail_status_names, x); }
std::string_view to_wire(reason_kind x) { return name_of(reason_kind_names, x); }

template <>
request_stage from_wire<request_stage>(std::string_view text) {
  return value_of(stage_names, text);
}
template <>
request_status from_wire<request_status>(std::string_view text) {
  return value_of(status_names, text);
}
template <>
detail_status from_wire<detail_status>(std::string_view text) {
  return value_of(detail_status_names, text);
}

std::string to_string(request_stage x) { return std::string{to_wire(x)}; }
std::string to_string(request_status x) { return std::string{to_wire(x)}; }
std::string to_string(detail_status x) { return std::string{to_wire(x)}; }
std::string to_string(reason_kind x) { return std::string{to_wire(x)}; }
std::string to_string(run_failure_kind x) {
  return std::string{name_of(run_failure_kind_names, x)};
}

std::ostream& operator<<(std::ostream& out, request_stage x) { return out << to_wire(x); }
std::ostream& operator<<(std::ostream& out, request_status x) { return out << to_wire(x); }
std::ostream& operator<<(std::ostream& out, detail_status x) { return out << to_wire(x); }
std::ostream& operator<<(std::ostream& out, reason_kind x) { return out << to_wire(x); }
std::ostream& operator<<(std::ostream& out, run_failure_kind x) { return out << to_string(x); }

} // namespace schedopt
