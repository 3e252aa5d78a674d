// The Eviction schedopt sends and what kube-apiserver's answers mean (eviction.hpp),
// with bodies shaped as pkg/registry/core/pod/storage/eviction.go and the API server's
// Status errors shape them; the retry backoff and the run's eviction window.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "model/kinds/pod_hyperconvergence/eviction.hpp"
#include "model/kinds/pod_hyperconvergence/pod_test_world.hpp"

using namespace schedopt;
using namespace schedopt::test::pods;
using namespace std::chrono_literals;

namespace {

// checkAndDecrement with disruptionsAllowed == 0.
const char* budget_429 = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
  "message":"Cannot evict pod as it would violate the pod's disruption budget.",
  "reason":"TooManyRequests",
  "details":{"causes":[{"reason":"DisruptionBudget",
    "message":"The disruption budget db-pdb needs 2 healthy pods and has 2 currently"}]},
  "code":429})";

// createTooManyRequestsError: the budget's status is behind its spec.
const char* processing_429 = R"({"kind":"Status","apiVersion":"v1","status":"Failure",
  "message":"Cannot evict pod as it would violate the pod's disruption budget.",
  "reason":"TooManyRequests",
  "details":{"retryAfterSeconds":10,"causes":[{"reason":"DisruptionBudget",
    "message":"The disruption budget db-pdb is still being processed by the server."}]},
  "code":429})";

// The eviction handler's own Status for a pod two budgets cover: no reason.
const char* two_budgets_500 = R"({"kind":"Status","apiVersion":"v1","status":"Failure",
  "message":"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
  "code":500})";

const char* internal_500 = R"({"kind":"Status","apiVersion":"v1","status":"Failure",
  "message":"Internal error occurred: etcdserver: request timed out","reason":"InternalError",
  "code":500})";

const char* not_found_404 = R"({"kind":"Status","apiVersion":"v1","status":"Failure",
  "message":"pods \"db-0\" not found","reason":"NotFound",
  "details":{"name":"db-0","kind":"pods"},"code":404})";

const char* uid_409 = R"({"kind":"Status","apiVersion":"v1","status":"Failure",
  "message":"Operation cannot be fulfilled on Pod \"db-0\": Precondition failed: UID in precondition: uid-a, UID in object meta: uid-b",
  "reason":"Conflict","details":{"name":"db-0","kind":"Pod"},"code":409})";

const char* forbidden_403 = R"({"kind":"Status","apiVersion":"v1","status":"Failure",
  "message":"pods \"db-0\" is forbidden: User \"system:serviceaccount:kube-system:schedopt\" cannot create resource \"pods/eviction\" in API group \"\" in the namespace \"ns\"",
  "reason":"Forbidden","code":403})";

const char* success_201 = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})";

} // namespace

BOOST_AUTO_TEST_SUITE(pod_eviction)

BOOST_AUTO_TEST_CASE(the_body_is_a_policy_v1_eviction_guarded_by_the_pods_uid) {
  auto body = eviction_body("ns", "db-0", "uid-a");
  BOOST_CHECK_EQUAL(body["apiVersion"], "policy/v1");
  BOOST_CHECK_EQUAL(body["kind"], "Eviction");
  BOOST_CHECK_EQUAL(body["metadata"]["name"], "db-0");
  BOOST_CHECK_EQUAL(body["metadata"]["namespace"], "ns");
  BOOST_CHECK_EQUAL(body["deleteOptions"]["preconditions"]["uid"], "uid-a");
  BOOST_CHECK(!body["deleteOptions"].contains("dryRun"));
  auto dry = eviction_body("ns", "db-0", "", true);
  BOOST_CHECK(!dry["deleteOptions"].contains("preconditions"));
  BOOST_CHECK_EQUAL(dry["deleteOptions"]["dryRun"], nlohmann::json::array({"All"}));
}

BOOST_AUTO_TEST_CASE(a_status_reads_its_causes_and_retry_hint) {
  auto s = decode_eviction_status(processing_429);
  BOOST_REQUIRE(s);
  BOOST_CHECK_EQUAL(s->code, 429);
  BOOST_CHECK_EQUAL(s->reason, "TooManyRequests");
  BOOST_CHECK_EQUAL(s->retry_after_seconds, 10);
  BOOST_REQUIRE_EQUAL(s->causes.size(), 1u);
  BOOST_CHECK_EQUAL(s->causes[0].type, "DisruptionBudget");
  BOOST_CHECK(!decode_eviction_status("[1]"));
  BOOST_CHECK(!decode_eviction_status(R"({"code":"429"})"));
}

BOOST_AUTO_TEST_CASE(created_means_evicted) {
  auto d = decide_eviction(201, success_201);
  BOOST_CHECK(d.verdict == eviction_verdict::evicted);
  BOOST_CHECK(decide_eviction(200, "").verdict == eviction_verdict::evicted);
}

BOOST_AUTO_TEST_CASE(too_many_requests_is_blocked_with_the_budgets_words) {
  auto d = decide_eviction(429, budget_429);
  BOOST_CHECK(d.verdict == eviction_verdict::blocked);
  BOOST_CHECK_EQUAL(d.message, "The disruption budget db-pdb needs 2 healthy pods and has 2 currently");
  BOOST_CHECK(d.retry_after == 0s);
  auto p = decide_eviction(429, processing_429);
  BOOST_CHECK_EQUAL(p.message, "The disruption budget db-pdb is still being processed by the server.");
  BOOST_CHECK(p.retry_after == 10s);
  // The API server shedding load: no cause, a Retry-After header.
  auto shed = decide_eviction(429, R"({"kind":"Status","status":"Failure",
      "message":"Too many requests, please try again later.","reason":"TooManyRequests","code":429})", 3s);
  BOOST_CHECK(shed.verdict == eviction_verdict::blocked);
  BOOST_CHECK_EQUAL(shed.message, "Too many requests, please try again later.");
  BOOST_CHECK(shed.retry_after == 3s);
  BOOST_CHECK_EQUAL(disruption_budget_reason(d.message),
                    "DisruptionBudget: The disruption budget db-pdb needs 2 healthy pods and has 2 currently");
}

BOOST_AUTO_TEST_CASE(not_found_and_a_failed_uid_precondition_mean_gone) {
  auto d = decide_eviction(404, not_found_404);
  BOOST_CHECK(d.verdict == eviction_verdict::gone);
  BOOST_CHECK_EQUAL(d.message, "pods \"db-0\" not found");
  BOOST_CHECK(decide_eviction(409, uid_409).verdict == eviction_verdict::gone);
}

BOOST_AUTO_TEST_CASE(two_budgets_fail_but_an_internal_error_is_retried) {
  auto d = decide_eviction(500, two_budgets_500);
  BOOST_CHECK(d.verdict == eviction_verdict::failed);
  BOOST_CHECK_EQUAL(d.message,
                    "EvictionFailed: This pod has more than one PodDisruptionBudget, which the "
                    "eviction subresource does not support.");
  BOOST_CHECK(decide_eviction(500, internal_500).verdict == eviction_verdict::transient);
  BOOST_CHECK(decide_eviction(500, "").verdict == eviction_verdict::transient);
  BOOST_CHECK(decide_eviction(504, R"({"status":"Failure","reason":"Timeout",
      "message":"couldn't update PodDisruptionBudget \"db-pdb\" due to conflicts","code":504})")
                .verdict == eviction_verdict::transient);
  auto none = decide_eviction(0, "");
  BOOST_CHECK(none.verdict == eviction_verdict::transient);
  BOOST_CHECK_EQUAL(none.message, "no answer from the API server");
}

BOOST_AUTO_TEST_CASE(other_answers_fail_with_the_api_servers_message) {
  auto d = decide_eviction(403, forbidden_403);
  BOOST_CHECK(d.verdict == eviction_verdict::failed);
  BOOST_CHECK(d.message.rfind("EvictionFailed: pods \"db-0\" is forbidden: User", 0) == 0);
  BOOST_CHECK_LE(d.message.size(), 256u);
  auto bare = decide_eviction(400, "not json");
  BOOST_CHECK_EQUAL(bare.message, "EvictionFailed: HTTP 400 without a message");
}

BOOST_AUTO_TEST_CASE(a_closed_window_skips_a_blocked_pod_and_fails_a_transient_one) {
  auto blocked = unevicted_outcome("ns", "db-1", decide_eviction(429, budget_429));
  BOOST_CHECK(blocked.status == pod_result::skipped);
  BOOST_CHECK_EQUAL(blocked.name, "db-1");
  BOOST_CHECK_EQUAL(blocked.namespace_, "ns");
  BOOST_CHECK_EQUAL(blocked.reason, "DisruptionBudget: The disruption budget db-pdb needs 2 "
                                    "healthy pods and has 2 currently");
  auto transient = unevicted_outcome("ns", "db-1", decide_eviction(503, R"({"status":"Failure",
      "message":"the server is currently unable to handle the request","reason":"ServiceUnavailable",
      "code":503})"));
  BOOST_CHECK(transient.status == pod_result::failed);
  BOOST_CHECK_EQUAL(transient.reason,
                    "EvictionFailed: the server is currently unable to handle the request");
}

BOOST_AUTO_TEST_CASE(retries_back_off_unless_the_server_says_how_long) {
  BOOST_CHECK(eviction_retry_delay(1, 0s) == 5s);
  BOOST_CHECK(eviction_retry_delay(2, 0s) == 10s);
  BOOST_CHECK(eviction_retry_delay(4, 0s) == 40s);
  BOOST_CHECK(eviction_retry_delay(5, 0s) == 60s);
  BOOST_CHECK(eviction_retry_delay(60, 0s) == 60s);
  BOOST_CHECK(eviction_retry_delay(3, 10s) == 10s);
  BOOST_CHECK(eviction_retry_delay(1, 3600s) == std::chrono::minutes(5));
}

BOOST_AUTO_TEST_CASE(the_window_stays_open_while_replacements_are_awaited) {
  auto t0 = at("2026-11-30T12:00:00Z");
  eviction_window w{t0, t0 + 6h, 2min};
  BOOST_CHECK(w.open(t0 + 1min, 0));
  BOOST_CHECK(!w.open(t0 + 2min, 0));       // nothing awaited, grace over
  BOOST_CHECK(w.open(t0 + 30min, 1));       // one replacement still coming
  w.progress(t0 + 30min);                   // it turned Ready
  BOOST_CHECK(w.open(t0 + 31min, 0));
  BOOST_CHECK(w.closes_at() == t0 + 32min);
  BOOST_CHECK(!w.open(t0 + 32min, 0));
  w.progress(t0 + 1min);                    // an older event does not move it back
  BOOST_CHECK(w.closes_at() == t0 + 32min);
  BOOST_CHECK(!w.open(t0 + 6h, 3));         // never past the run's deadline
  eviction_window short_run{t0, t0 + 1min, 2min};
  BOOST_CHECK(short_run.closes_at() == t0 + 1min);
}

BOOST_AUTO_TEST_SUITE_END()
