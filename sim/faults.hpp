// Injected API faults (docs/simulator.md): 5xx and 429 rates, watch drops, latency.
// Applied only to /api and /apis requests, never to admin or health endpoints.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <string>

namespace schedopt::sim {

struct fault_options {
  double rate_5xx = 0.0;
  double rate_429 = 0.0;
  std::chrono::milliseconds watch_drop_after{0}; // 0: never
  std::chrono::milliseconds latency{0};
  /// The scenario's --seed: the same seed and the same sequence of requests roll the same
  /// faults, so a fault run can be replayed (and a test's outcome does not hang on luck).
  uint64_t seed = 1;
};

struct injected_fault {
  int status = 0;          // 500 or 429
  std::string reason;      // InternalError, TooManyRequests
  std::string message;
  int retry_after_seconds = 0; // 0: no Retry-After header
};

class fault_injector {
public:
  explicit fault_injector(fault_options options);

  const fault_options& options() const { return options_; }
  /// Whether faults apply to this path at all (/api, /apis and below).
  static bool applies_to(const std::string& path);
  /// Rolls the dice for one request.
  std::optional<injected_fault> roll();

private:
  fault_options options_;
  std::mutex mtx_;
  std::mt19937_64 rng_;
};

} // namespace schedopt::sim
