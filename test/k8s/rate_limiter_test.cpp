// Token bucket arithmetic, retry classification and Retry-After handling (no sleeping).
#include <boost/test/unit_test.hpp>

#include "k8s/backoff.hpp"
#include "k8s/rate_limiter.hpp"

using namespace std::chrono_literals;
using schedopt::k8s::token_bucket;

BOOST_AUTO_TEST_CASE(token_bucket_allows_burst_then_qps) {
  auto t0 = token_bucket::clock::time_point{} + 1000s;
  token_bucket b{10, 5, t0};
  int taken = 0;
  while (b.try_take(t0))
    ++taken;
  BOOST_CHECK_EQUAL(taken, 5);
  BOOST_CHECK(b.wait_time(t0) > 0ms);
  BOOST_CHECK(b.wait_time(t0) <= 101ms);
  BOOST_CHECK(!b.try_take(t0 + 50ms));
  BOOST_CHECK(b.try_take(t0 + 100ms));
  // One second later: 10 more tokens, but never more than the burst.
  int later = 0;
  while (b.try_take(t0 + 10s))
    ++later;
  BOOST_CHECK_EQUAL(later, 5);
}

BOOST_AUTO_TEST_CASE(token_bucket_n_requests_take_at_least_n_minus_burst_over_qps) {
  auto t = token_bucket::clock::time_point{} + 5s;
  auto start = t;
  token_bucket b{20, 30, t};
  for (int i = 0; i < 100; ++i) {
    while (!b.try_take(t))
      t += b.wait_time(t);
  }
  std::chrono::duration<double> took = t - start;
  BOOST_CHECK_GE(took.count(), (100 - 30) / 20.0 - 1e-3);
}

BOOST_AUTO_TEST_CASE(retry_after_parsing) {
  using schedopt::k8s::parse_retry_after;
  BOOST_CHECK(parse_retry_after("3") == 3000ms);
  BOOST_CHECK(parse_retry_after("") < 0ms);
  BOOST_CHECK(parse_retry_after("soon") < 0ms);
  BOOST_CHECK(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0ms); // in the past
}

BOOST_AUTO_TEST_CASE(backoff_grows_with_jitter_and_honours_retry_after) {
  schedopt::k8s::backoff_policy policy{100ms, 2000ms, 5};
  std::mt19937_64 rng{7};
  for (int attempt = 1; attempt <= 8; ++attempt) {
    auto d = schedopt::k8s::retry_delay(policy, attempt, "", rng);
    auto full = std::min<int64_t>(2000, 100 << (attempt - 1));
    BOOST_CHECK_GE(d.count(), full / 2);
    BOOST_CHECK_LE(d.count(), full);
  }
  BOOST_CHECK(schedopt::k8s::retry_delay(policy, 1, "1", rng) == 1000ms);
}

BOOST_AUTO_TEST_CASE(retry_after_is_honoured_beyond_max_backoff_up_to_the_ceiling) {
  using namespace std::chrono_literals;
  schedopt::k8s::backoff_policy policy{100ms, 2000ms, 5};
  std::mt19937_64 rng{7};
  // The server's value wins even when it is far above our own exponential cap.
  BOOST_CHECK(schedopt::k8s::retry_delay(policy, 1, "30", rng) == 30s);
  BOOST_CHECK(schedopt::k8s::retry_delay(policy, 1, "600", rng) == 600s);
  // Only the generous ceiling cuts it, including absurdly long values.
  BOOST_CHECK(schedopt::k8s::retry_delay(policy, 1, "3600", rng) == 600s);
  BOOST_CHECK(schedopt::k8s::retry_delay(policy, 1, "99999999999", rng) == 600s);
  BOOST_CHECK(schedopt::k8s::parse_retry_after("99999999999") > 600s);
  policy.retry_after_ceiling = 5s;
  BOOST_CHECK(schedopt::k8s::retry_delay(policy, 1, "30", rng) == 5s);
}
