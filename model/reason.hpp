// Per-VM reasons are "<Enum>: <detail>" (clients split on the first ": "), capped at
// 256 bytes on a UTF-8 boundary so a status never grows without bound.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace schedopt {

constexpr std::size_t max_reason_bytes = 256;

/// The enums of docs/design.md §2.6 and §3.6.
namespace reason_kind {
constexpr const char* opted_out = "OptedOut";
constexpr const char* not_live_migratable = "NotLiveMigratable";
constexpr const char* migration_in_progress = "MigrationInProgress";
constexpr const char* cooling_off = "CoolingOff";
constexpr const char* no_target_node = "NoTargetNode";
constexpr const char* evaluation_error = "EvaluationError";
constexpr const char* migration_run_failed = "MigrationRunFailed";
constexpr const char* migration_timed_out = "MigrationTimedOut";
constexpr const char* migration_create_failed = "MigrationCreateFailed";
} // namespace reason_kind

/// Cuts `text` to at most `max_bytes` without splitting a UTF-8 sequence.
std::string truncate_utf8(std::string_view text, std::size_t max_bytes);

/// "<kind>: <detail>", capped at max_reason_bytes.
std::string make_reason(std::string_view kind, std::string_view detail);

/// Splits a reason on its first ": " into {kind, detail}; kind is empty when absent.
std::pair<std::string, std::string> split_reason(std::string_view reason);

} // namespace schedopt
