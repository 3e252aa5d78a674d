// RFC 3339 timestamps as Kubernetes writes them (UTC, "Z"), with or without fractions.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "model/error.hpp"

namespace schedopt {

using timestamp = std::chrono::system_clock::time_point;

/// Accepts "2026-11-30T12:00:00Z", "2026-11-30T12:00:00.123456Z" and numeric offsets
/// ("+02:00"); returns UTC.
expected<timestamp> parse_rfc3339(std::string_view text);

/// Seconds precision, UTC: "2026-11-30T12:00:00Z" (metav1.Time's wire form).
std::string format_rfc3339(timestamp t);

/// Microsecond precision: "2026-11-30T12:00:00.123456Z" (metav1.MicroTime, used by Leases).
std::string format_rfc3339_micro(timestamp t);

} // namespace schedopt
