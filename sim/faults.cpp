// Fault decisions; the API server turns them into Status responses.
#include "sim/faults.hpp"

namespace schedopt::sim {

fault_injector::fault_injector(fault_options options)
  : options_(options), rng_(options.seed) {}

bool fault_injector::applies_to(const std::string& path) {
  return path == "/api" || path == "/apis" || path.rfind("/api/", 0) == 0
         || path.rfind("/apis/", 0) == 0;
}

std::optional<injected_fault> fault_injector::roll() {
  if (options_.rate_5xx <= 0 && options_.rate_429 <= 0)
    return std::nullopt;
  double dice;
  {
    std::lock_guard<std::mutex> guard(mtx_);
    dice = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  }
  if (dice < options_.rate_5xx)
    return injected_fault{500, "InternalError",
                          "Internal error occurred: injected fault (--fault-5xx-rate)", 0};
  if (dice < options_.rate_5xx + options_.rate_429)
    return injected_fault{429, "TooManyRequests",
                          "Too many requests, please try again later. (injected by --fault-429-rate)",
                          1};
  return std::nullopt;
}

} // namespace schedopt::sim
