// The API client's retry decision per verb (k8s/retry_policy.hpp): a call whose answer
// was lost, or may follow a commit, is sent again only when the server recognises the
// replay; answers that refused the request before acting on it are retried for any verb.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "k8s/access_reviews.hpp"
#include "k8s/requests.hpp"
#include "k8s/retry_policy.hpp"

namespace k8s = schedopt::k8s;
namespace res = schedopt::k8s::resources;
using nlohmann::json;

namespace {

k8s::http_call create_of(const json& metadata) {
  json body = {{"apiVersion", "v1"}, {"kind", "Event"}, {"metadata", metadata}};
  return k8s::to_http(k8s::create_request{res::events, "default", body.dump()});
}

k8s::http_call json_patch(const json& ops) {
  return k8s::to_http(k8s::patch_request{res::events, "default", "e1", ops.dump(), false, true});
}

k8s::attempt_result no_answer() { return {0, false, true}; }
k8s::attempt_result never_sent() { return {0, false, false}; }
k8s::attempt_result answered(int status, bool retry_after = false) { return {status, retry_after, true}; }

bool retried(const k8s::attempt_result& a, const k8s::http_call& call) {
  return k8s::decide_retry(a, k8s::replay_is_harmless(call)).retry;
}

} // namespace

BOOST_AUTO_TEST_SUITE(retry_policy)

BOOST_AUTO_TEST_CASE(reads_are_always_harmless) {
  BOOST_TEST(k8s::replay_is_harmless(k8s::to_http(k8s::get_request{res::nodes, "", "n1", {}})));
  k8s::list_request list;
  list.res = res::vmis;
  BOOST_TEST(k8s::replay_is_harmless(k8s::to_http(list)));
  k8s::watch_request watch;
  watch.res = res::vmims;
  BOOST_TEST(k8s::replay_is_harmless(k8s::to_http(watch)));
}

BOOST_AUTO_TEST_CASE(a_create_is_harmless_only_with_a_fixed_name) {
  BOOST_TEST(k8s::replay_is_harmless(create_of({{"name", "so-1.17f3a"}, {"namespace", "default"}})));
  BOOST_TEST(!k8s::replay_is_harmless(create_of({{"generateName", "vm-1-schedopt-"}})));
  BOOST_TEST(!k8s::replay_is_harmless(create_of({{"name", ""}, {"generateName", "x-"}})));
  BOOST_TEST(!k8s::replay_is_harmless(create_of(json::object())));
  BOOST_TEST(!k8s::replay_is_harmless(k8s::to_http(k8s::create_request{res::events, "default", "not json"})));
}

// A review is answered and never stored: the metrics endpoint's TokenReview and
// SubjectAccessReview are retried after a lost answer or a 5xx, as the apiserver's
// webhook authenticator and authorizer retry them (util/webhook DefaultShouldRetry).
BOOST_AUTO_TEST_CASE(a_review_is_harmless_though_nameless) {
  auto token_review = k8s::to_http(k8s::create_request{res::token_reviews, "", k8s::token_review_body("t")});
  auto access_review = k8s::to_http(k8s::create_request{
    res::subject_access_reviews, "", k8s::access_review_body(k8s::access_review_spec({"u", "", {}, {}}, "get", "/metrics"))});
  BOOST_TEST(token_review.target == "/apis/authentication.k8s.io/v1/tokenreviews");
  BOOST_TEST(access_review.target == "/apis/authorization.k8s.io/v1/subjectaccessreviews");
  for (const auto& call : {token_review, access_review}) {
    BOOST_TEST(k8s::replay_is_harmless(call));
    BOOST_TEST(retried(no_answer(), call));
    BOOST_TEST(retried(answered(500), call));
    BOOST_TEST(!retried(answered(403), call));
  }
}

BOOST_AUTO_TEST_CASE(an_update_is_harmless_only_with_a_resource_version) {
  json with = {{"metadata", {{"name", "schedopt-leader"}, {"resourceVersion", "42"}}}};
  json without = {{"metadata", {{"name", "schedopt-leader"}}}};
  BOOST_TEST(k8s::replay_is_harmless(k8s::to_http(k8s::update_request{res::leases, "ns", "schedopt-leader", with.dump(), false})));
  BOOST_TEST(!k8s::replay_is_harmless(k8s::to_http(k8s::update_request{res::leases, "ns", "schedopt-leader", without.dump(), false})));
}

BOOST_AUTO_TEST_CASE(a_patch_is_harmless_only_as_a_json_patch_led_by_a_test) {
  BOOST_TEST(k8s::replay_is_harmless(json_patch(json::array(
    {{{"op", "test"}, {"path", "/metadata/uid"}, {"value", "u1"}}, {{"op", "replace"}, {"path", "/status"}, {"value", 1}}}))));
  // A test later in the patch does not guard the operations before it.
  BOOST_TEST(!k8s::replay_is_harmless(json_patch(json::array(
    {{{"op", "add"}, {"path", "/items/-"}, {"value", 1}}, {{"op", "test"}, {"path", "/count"}, {"value", 1}}}))));
  BOOST_TEST(!k8s::replay_is_harmless(json_patch(json::array())));
  // The same body as a merge patch is no JSON patch.
  json merge = {{"count", 2}};
  BOOST_TEST(!k8s::replay_is_harmless(
    k8s::to_http(k8s::patch_request{res::events, "default", "e1", merge.dump(), false, false})));
}

BOOST_AUTO_TEST_CASE(a_delete_is_harmless_only_with_preconditions) {
  k8s::delete_request d{res::vmims, "ns", "vm-1-schedopt-abc", "", "", ""};
  BOOST_TEST(!k8s::replay_is_harmless(k8s::to_http(d)));
  d.propagation_policy = "Background";
  BOOST_TEST(!k8s::replay_is_harmless(k8s::to_http(d)));
  d.uid = "3f2a";
  BOOST_TEST(k8s::replay_is_harmless(k8s::to_http(d)));
  d.uid.clear();
  d.resource_version = "17";
  BOOST_TEST(k8s::replay_is_harmless(k8s::to_http(d)));
}

BOOST_AUTO_TEST_CASE(a_lost_answer_is_retried_per_verb) {
  auto get = k8s::to_http(k8s::get_request{res::nodes, "", "n1", {}});
  auto named = create_of({{"name", "so-1.17f3a"}});
  auto generated = create_of({{"generateName", "vm-1-schedopt-"}});
  auto merge = k8s::to_http(k8s::patch_request{res::vms, "ns", "vm-1", R"({"metadata":{}})", false, false});
  auto guarded = json_patch(json::array({{{"op", "test"}, {"path", "/count"}, {"value", 1}}}));
  auto bare_delete = k8s::to_http(k8s::delete_request{res::vmims, "ns", "m", "", "", ""});
  BOOST_TEST(retried(no_answer(), get));
  BOOST_TEST(retried(no_answer(), named));
  BOOST_TEST(retried(no_answer(), guarded));
  BOOST_TEST(!retried(no_answer(), generated));
  BOOST_TEST(!retried(no_answer(), merge));
  BOOST_TEST(!retried(no_answer(), bare_delete));
  // Nothing of it left this process (connection refused, TLS handshake): any verb.
  BOOST_TEST(retried(never_sent(), generated));
  BOOST_TEST(retried(never_sent(), merge));
}

BOOST_AUTO_TEST_CASE(answers_that_refused_the_request_are_retried_for_any_verb) {
  auto generated = create_of({{"generateName", "vm-1-schedopt-"}});
  BOOST_TEST(retried(answered(429, true), generated));
  BOOST_TEST(retried(answered(429, false), generated));
  BOOST_TEST(retried(answered(503, true), generated));
  // A 5xx that may follow a commit: only a replay the server recognises.
  BOOST_TEST(!retried(answered(500, true), generated)); // storage ServerTimeout, Retry-After 2
  BOOST_TEST(!retried(answered(500), generated));
  BOOST_TEST(!retried(answered(504), generated));
  BOOST_TEST(!retried(answered(503), generated));
  auto named = create_of({{"name", "so-1.17f3a"}});
  BOOST_TEST(retried(answered(500), named));
  BOOST_TEST(retried(answered(502), named));
  BOOST_TEST(retried(answered(504), named));
}

BOOST_AUTO_TEST_CASE(client_errors_and_not_implemented_are_final) {
  auto get = k8s::to_http(k8s::get_request{res::nodes, "", "n1", {}});
  for (int status : {400, 401, 403, 404, 409, 410, 422})
    BOOST_TEST_CONTEXT("status " << status) { BOOST_TEST(!retried(answered(status), get)); }
  BOOST_TEST(!retried(answered(501), get));
  BOOST_TEST(retried(answered(501, true), get)); // client-go's checkWait: any 5xx with Retry-After
  // A 2xx whose body broke off is the caller's to judge.
  BOOST_TEST(!retried(answered(200), get));
}

BOOST_AUTO_TEST_SUITE_END()
