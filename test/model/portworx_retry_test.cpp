// Which Portworx SDK gateway answers are worth retrying, and how long to wait.
#include <boost/test/unit_test.hpp>

#include "model/portworx_sdk.hpp"

using namespace schedopt;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(portworx_retry)

BOOST_AUTO_TEST_CASE(transient_and_permanent_answers) {
  BOOST_CHECK(classify_sdk_answer(200, false) == sdk_answer_kind::ok);
  BOOST_CHECK(classify_sdk_answer(404, false) == sdk_answer_kind::not_found);
  for (int status : {429, 500, 502, 503, 504})
    BOOST_CHECK(classify_sdk_answer(status, false) == sdk_answer_kind::transient);
  BOOST_CHECK(classify_sdk_answer(0, true) == sdk_answer_kind::transient);    // refused, timeout
  BOOST_CHECK(classify_sdk_answer(200, true) == sdk_answer_kind::transient);  // reset mid-body
  for (int status : {400, 401, 403, 409, 501})
    BOOST_CHECK(classify_sdk_answer(status, false) == sdk_answer_kind::permanent);
}

BOOST_AUTO_TEST_CASE(delays_double_to_a_cap_and_attempts_run_out) {
  sdk_retry_policy p;
  BOOST_CHECK(sdk_retry_delay(p, 1, -1ms) == 100ms);
  BOOST_CHECK(sdk_retry_delay(p, 2, -1ms) == 200ms);
  BOOST_CHECK(sdk_retry_delay(p, 4, -1ms) == 800ms);
  BOOST_CHECK(!sdk_retry_delay(p, 5, -1ms)); // 5 calls made: give up
  p.max_attempts = 10;
  BOOST_CHECK(sdk_retry_delay(p, 9, -1ms) == 3000ms);
  // Retry-After replaces the doubling, up to its own bound.
  BOOST_CHECK(sdk_retry_delay(p, 1, 2000ms) == 2000ms);
  BOOST_CHECK(sdk_retry_delay(p, 1, 3600s) == 30s);
}

BOOST_AUTO_TEST_SUITE_END()
