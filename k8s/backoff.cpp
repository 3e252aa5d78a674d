// Exponential backoff with jitter, honouring Retry-After.
#include "k8s/backoff.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>

#include <spdlog/spdlog.h>

namespace schedopt::k8s {

std::chrono::milliseconds parse_retry_after(const std::string& value) {
  if (value.empty())
    return std::chrono::milliseconds{-1};
  if (std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); })) {
    // Saturate instead of overflowing: the caller's ceiling decides what "long" means.
    if (value.size() > 9)
      return std::chrono::seconds{999'999'999};
    return std::chrono::seconds{std::stol(value)};
  }
  std::tm tm{};
  if (strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm) == nullptr)
    return std::chrono::milliseconds{-1};
  auto when = timegm(&tm);
  auto now = std::time(nullptr);
  return std::chrono::seconds{std::max<long>(0, static_cast<long>(when - now))};
}

std::chrono::milliseconds retry_delay(const backoff_policy& policy, int attempt,
                                      const std::string& retry_after, std::mt19937_64& rng) {
  auto server = parse_retry_after(retry_after);
  if (server.count() >= 0) {
    if (server > policy.retry_after_ceiling) {
      spdlog::warn("Retry-After '{}' exceeds the {}s ceiling; waiting {}s instead", retry_after,
                   policy.retry_after_ceiling.count() / 1000,
                   policy.retry_after_ceiling.count() / 1000);
      return policy.retry_after_ceiling;
    }
    return server;
  }
  auto shift = std::min(attempt - 1, 20);
  auto d = std::min<int64_t>(policy.max.count(), policy.initial.count() << std::max(0, shift));
  std::uniform_int_distribution<int64_t> dist{d / 2, std::max<int64_t>(d / 2, d)};
  return std::chrono::milliseconds{dist(rng)};
}

} // namespace schedopt::k8s
