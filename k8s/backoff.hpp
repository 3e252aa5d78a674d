// How long the API client waits before a retry (exponential with full jitter, or the
// server's Retry-After); which calls are retried is k8s/retry_policy.hpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>
#include <string>

namespace schedopt::k8s {

struct backoff_policy {
  std::chrono::milliseconds initial{200};
  std::chrono::milliseconds max{10000};
  int max_retries = 5;
  // The server knows its own load, so its Retry-After beats our exponential guess, as in
  // client-go; this only stops a broken or hostile header from parking a call for hours.
  std::chrono::milliseconds retry_after_ceiling{std::chrono::minutes{10}};
};

/// Retry-After as seconds ("3") or HTTP date; negative when absent or unparsable. An
/// absurdly long number of seconds saturates (a ceiling applies later) rather than being
/// mistaken for "no header".
std::chrono::milliseconds parse_retry_after(const std::string& value);

/// Delay before retry number `attempt` (1-based): Retry-After wins when present, as the
/// server gave it, cut only at `retry_after_ceiling` (with a warning); else a random delay
/// in [d/2, d] with d = initial * 2^(attempt-1) capped at `max`.
std::chrono::milliseconds retry_delay(const backoff_policy& policy, int attempt,
                                      const std::string& retry_after, std::mt19937_64& rng);

} // namespace schedopt::k8s
