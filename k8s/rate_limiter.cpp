// Token bucket arithmetic.
#include "k8s/rate_limiter.hpp"

#include <algorithm>

namespace schedopt::k8s {

token_bucket::token_bucket(double qps, int burst, clock::time_point now)
  : qps_(qps > 0 ? qps : 1e-9), burst_(std::max(1, burst)), tokens_(burst_), last_(now) {
}

void token_bucket::refill(clock::time_point now) {
  if (now <= last_)
    return;
  std::chrono::duration<double> elapsed = now - last_;
  tokens_ = std::min<double>(burst_, tokens_ + elapsed.count() * qps_);
  last_ = now;
}

bool token_bucket::try_take(clock::time_point now) {
  refill(now);
  if (tokens_ >= 1.0) {
    tokens_ -= 1.0;
    return true;
  }
  return false;
}

token_bucket::clock::duration token_bucket::wait_time(clock::time_point now) {
  refill(now);
  if (tokens_ >= 1.0)
    return clock::duration::zero();
  std::chrono::duration<double> secs{(1.0 - tokens_) / qps_};
  return std::chrono::duration_cast<clock::duration>(secs) + std::chrono::microseconds{1};
}

} // namespace schedopt::k8s
