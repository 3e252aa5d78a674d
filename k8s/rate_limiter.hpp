// Token bucket (client-go's flowcontrol): `qps` tokens per second, at most `burst` saved.
// Time is passed in so tests need no sleeping.
#pragma once

#include <chrono>

namespace schedopt::k8s {

class token_bucket {
public:
  using clock = std::chrono::steady_clock;

  token_bucket(double qps, int burst, clock::time_point now = clock::now());

  /// Takes a token if one is available at `now`.
  bool try_take(clock::time_point now);

  /// How long until a token is available (zero when one is).
  clock::duration wait_time(clock::time_point now);

  double qps() const { return qps_; }
  int burst() const { return burst_; }

private:
  void refill(clock::time_point now);

  double qps_;
  int burst_;
  double tokens_;
  clock::time_point last_;
};

} // namespace schedopt::k8s
