#pragma once
// Go's text forms of the times and durations Kubernetes' JSON carries: time.RFC3339 (what
// metav1.Time writes), metav1.RFC3339Micro (MicroTime) and time.Duration's String (metav1.Duration).
#include <cstdint>
#include <optional>
#include <string>

namespace schedopt::sim::protobuf {

std::string format_rfc3339(std::int64_t unix_seconds);
std::string format_rfc3339_micro(std::int64_t unix_seconds, std::int32_t nanos);

struct unix_time {
  std::int64_t seconds = 0;
  std::int32_t nanos = 0;
};
/// RFC 3339 with an optional fraction and a Z or ±hh:mm offset; nullopt otherwise.
std::optional<unix_time> parse_rfc3339(const std::string& text);

/// As Go's time.Duration.String: "0s", "1.5s", "1h0m0s", "250ms", "3µs".
std::string format_go_duration(std::int64_t nanoseconds);
/// As Go's time.ParseDuration; nullopt on text it refuses.
std::optional<std::int64_t> parse_go_duration(const std::string& text);

} // namespace schedopt::sim::protobuf
