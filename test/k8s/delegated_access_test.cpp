// The decision in front of /metrics (k8s/delegated_access.hpp) against a recorded API
// server: which reviews go out with what, which status each outcome gets, and how long
// each answer is reused (controller-runtime's filters.go TTLs), on a test clock.
#include <boost/test/unit_test.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "k8s/delegated_access.hpp"

using namespace std::chrono_literals;
namespace k8s = schedopt::k8s;
using nlohmann::json;

namespace {

/// An API server that answers reviews from a table and records them.
struct fake_api {
  std::map<std::string, json> users;  // token -> status.user of an authenticated token
  std::set<std::string> allowed;      // usernames allowed get /metrics
  std::string token_error;            // status.error for an unknown token
  bool fail = false;                  // every review fails (transport)
  bool fail_access = false;           // access reviews fail (transport)
  std::vector<json> token_reviews;
  std::vector<json> access_reviews;

  k8s::review_sender sender() {
    return [this](const k8s::resource& kind, const std::string& body) -> schedopt::expected<std::string> {
      if (fail)
        return schedopt::make_error(schedopt::ec::transport_error, "connection refused");
      auto review = json::parse(body);
      if (kind.plural == "tokenreviews") {
        token_reviews.push_back(review);
        auto token = review["spec"]["token"].get<std::string>();
        json status = json::object();
        if (auto it = users.find(token); it != users.end())
          status = {{"authenticated", true}, {"user", it->second}};
        else if (!token_error.empty())
          status = {{"error", token_error}};
        review["status"] = status;
        return review.dump();
      }
      BOOST_REQUIRE(kind.plural == "subjectaccessreviews");
      if (fail_access)
        return schedopt::make_error(schedopt::ec::server_error, "etcdserver: request timed out");
      access_reviews.push_back(review);
      review["status"] = {{"allowed", allowed.count(review["spec"].value("user", "")) > 0}};
      return review.dump();
    };
  }
};

const auto t0 = std::chrono::steady_clock::time_point{} + 1000s;

json service_account(const std::string& name) {
  return {{"username", "system:serviceaccount:monitoring:" + name},
          {"uid", "uid-" + name},
          {"groups", {"system:serviceaccounts", "system:serviceaccounts:monitoring", "system:authenticated"}}};
}

} // namespace

BOOST_AUTO_TEST_SUITE(delegated_access)

BOOST_AUTO_TEST_CASE(bearer_token_is_read_as_the_apiserver_reads_it) {
  BOOST_TEST(*k8s::bearer_token("Bearer abc") == "abc");
  BOOST_TEST(*k8s::bearer_token("  bearer abc  ") == "abc");
  BOOST_TEST(*k8s::bearer_token("BEARER abc extra") == "abc");
  BOOST_TEST(!k8s::bearer_token(""));
  BOOST_TEST(!k8s::bearer_token("Bearer"));
  BOOST_TEST(!k8s::bearer_token("Bearer "));
  BOOST_TEST(!k8s::bearer_token("Bearer  abc")); // the space before the token: empty token
  BOOST_TEST(!k8s::bearer_token("Basic dXNlcjpwYXNz"));
  BOOST_TEST(!k8s::bearer_token("Bearer\tabc"));
}

BOOST_AUTO_TEST_CASE(no_token_is_401_without_asking) {
  fake_api api;
  k8s::delegated_access access(api.sender());
  for (const char* header : {"", "Basic dXNlcjpwYXNz", "Bearer "}) {
    auto d = access.check(header, "get", "/metrics", t0);
    BOOST_TEST(d.status == 401);
    BOOST_TEST(d.body == "Unauthorized\n");
  }
  BOOST_TEST(access.reviews_sent() == 0u);
}

BOOST_AUTO_TEST_CASE(allowed_user_gets_200_after_one_review_of_each_kind) {
  fake_api api;
  api.users["good"] = service_account("prometheus");
  api.allowed.insert("system:serviceaccount:monitoring:prometheus");
  k8s::delegated_access access(api.sender());
  auto d = access.check("Bearer good", "get", "/metrics", t0);
  BOOST_TEST(d.status == 200);
  BOOST_TEST(d.user == "system:serviceaccount:monitoring:prometheus");
  BOOST_REQUIRE(api.token_reviews.size() == 1u);
  BOOST_TEST(api.token_reviews[0]["apiVersion"] == "authentication.k8s.io/v1");
  BOOST_TEST(api.token_reviews[0]["spec"] == json({{"token", "good"}})); // no audiences
  BOOST_REQUIRE(api.access_reviews.size() == 1u);
  auto spec = api.access_reviews[0]["spec"];
  BOOST_TEST(api.access_reviews[0]["kind"] == "SubjectAccessReview");
  BOOST_TEST(spec["user"] == "system:serviceaccount:monitoring:prometheus");
  BOOST_TEST(spec["uid"] == "uid-prometheus");
  BOOST_TEST(spec["groups"] == service_account("prometheus")["groups"]); // system:authenticated not doubled
  BOOST_TEST(spec["nonResourceAttributes"] == json({{"path", "/metrics"}, {"verb", "get"}}));
  BOOST_TEST(!spec.contains("resourceAttributes"));
}

BOOST_AUTO_TEST_CASE(user_and_extra_travel_and_system_authenticated_is_added) {
  fake_api api;
  api.users["t"] = {{"username", "alice"}, {"extra", {{"scopes", {"a", "b"}}}}};
  k8s::delegated_access access(api.sender());
  auto d = access.check("Bearer t", "get", "/metrics", t0);
  BOOST_TEST(d.status == 403);
  BOOST_TEST(d.body == "Authorization denied for user alice\n");
  BOOST_REQUIRE(api.access_reviews.size() == 1u);
  auto spec = api.access_reviews[0]["spec"];
  BOOST_TEST(spec["groups"] == json::array({"system:authenticated"}));
  BOOST_TEST(spec["extra"] == json({{"scopes", {"a", "b"}}}));
  BOOST_TEST(!spec.contains("uid"));
}

BOOST_AUTO_TEST_CASE(unknown_token_is_401_and_reused_for_a_minute) {
  fake_api api;
  k8s::delegated_access access(api.sender());
  auto d = access.check("Bearer stranger", "get", "/metrics", t0);
  BOOST_TEST(d.status == 401);
  BOOST_TEST(d.body == "Unauthorized\n");
  BOOST_TEST(access.check("Bearer stranger", "get", "/metrics", t0 + 59s).status == 401);
  BOOST_TEST(api.token_reviews.size() == 1u);
  BOOST_TEST(access.check("Bearer stranger", "get", "/metrics", t0 + 61s).status == 401);
  BOOST_TEST(api.token_reviews.size() == 2u);
  BOOST_TEST(api.access_reviews.empty());
}

// The token authenticator's cache keeps no answer that came with an error.
BOOST_AUTO_TEST_CASE(a_rejection_with_an_error_is_401_and_asked_again) {
  fake_api api;
  api.token_error = "[invalid bearer token, service account token has been invalidated]";
  k8s::delegated_access access(api.sender());
  auto d = access.check("Bearer revoked", "get", "/metrics", t0);
  BOOST_TEST(d.status == 401);
  BOOST_TEST(d.why == api.token_error);
  access.check("Bearer revoked", "get", "/metrics", t0 + 1s);
  BOOST_TEST(api.token_reviews.size() == 2u);
}

BOOST_AUTO_TEST_CASE(authenticated_token_is_reused_for_a_minute_allowed_for_five) {
  fake_api api;
  api.users["good"] = service_account("prometheus");
  api.allowed.insert("system:serviceaccount:monitoring:prometheus");
  k8s::delegated_access access(api.sender());
  BOOST_TEST(access.check("Bearer good", "get", "/metrics", t0).status == 200);
  BOOST_TEST(access.check("Bearer good", "get", "/metrics", t0 + 59s).status == 200);
  BOOST_TEST(api.token_reviews.size() == 1u);
  BOOST_TEST(api.access_reviews.size() == 1u);
  // The token again after a minute; the allowed answer still from the cache.
  BOOST_TEST(access.check("Bearer good", "get", "/metrics", t0 + 61s).status == 200);
  BOOST_TEST(api.token_reviews.size() == 2u);
  BOOST_TEST(api.access_reviews.size() == 1u);
  // A revoked grant shows within five minutes.
  api.allowed.clear();
  BOOST_TEST(access.check("Bearer good", "get", "/metrics", t0 + 299s).status == 200);
  BOOST_TEST(access.check("Bearer good", "get", "/metrics", t0 + 301s).status == 403);
  BOOST_TEST(api.access_reviews.size() == 2u);
}

BOOST_AUTO_TEST_CASE(denied_is_403_and_reused_for_thirty_seconds) {
  fake_api api;
  api.users["other"] = service_account("other");
  k8s::delegated_access access(api.sender());
  auto d = access.check("Bearer other", "get", "/metrics", t0);
  BOOST_TEST(d.status == 403);
  BOOST_TEST(d.body == "Authorization denied for user system:serviceaccount:monitoring:other\n");
  BOOST_TEST(access.check("Bearer other", "get", "/metrics", t0 + 29s).status == 403);
  BOOST_TEST(api.access_reviews.size() == 1u);
  // Granted meanwhile: the next ask after the denied TTL sees it.
  api.allowed.insert("system:serviceaccount:monitoring:other");
  BOOST_TEST(access.check("Bearer other", "get", "/metrics", t0 + 31s).status == 200);
  BOOST_TEST(api.access_reviews.size() == 2u);
}

BOOST_AUTO_TEST_CASE(each_path_and_verb_is_its_own_question) {
  fake_api api;
  api.users["good"] = service_account("prometheus");
  api.allowed.insert("system:serviceaccount:monitoring:prometheus");
  k8s::delegated_access access(api.sender());
  access.check("Bearer good", "get", "/metrics", t0);
  access.check("Bearer good", "head", "/metrics", t0);
  BOOST_REQUIRE(api.access_reviews.size() == 2u);
  BOOST_TEST(api.access_reviews[1]["spec"]["nonResourceAttributes"]["verb"] == "head");
}

BOOST_AUTO_TEST_CASE(a_review_that_fails_is_500_and_never_cached) {
  fake_api api;
  api.users["good"] = service_account("prometheus");
  api.allowed.insert("system:serviceaccount:monitoring:prometheus");
  api.fail = true;
  k8s::delegated_access access(api.sender());
  auto d = access.check("Bearer good", "get", "/metrics", t0);
  BOOST_TEST(d.status == 500);
  BOOST_TEST(d.body == "Authentication failed\n");
  BOOST_TEST(d.why.find("connection refused") != std::string::npos);
  api.fail = false;
  BOOST_TEST(access.check("Bearer good", "get", "/metrics", t0 + 1s).status == 200);

  // The token known (cached), the access review failing: 500 naming the user, and the
  // denied answer it replaced is not kept either.
  api.allowed.clear();
  k8s::delegated_access second(api.sender());
  BOOST_TEST(second.check("Bearer good", "get", "/metrics", t0).status == 403);
  api.fail_access = true;
  auto later = second.check("Bearer good", "get", "/metrics", t0 + 31s);
  BOOST_TEST(later.status == 500);
  BOOST_TEST(later.body == "Authorization for user system:serviceaccount:monitoring:prometheus failed\n");
  BOOST_TEST(later.why == "SubjectAccessReview: etcdserver: request timed out");
  BOOST_TEST(second.check("Bearer good", "get", "/metrics", t0 + 32s).status == 500);
  BOOST_TEST(api.token_reviews.size() == 2u); // one answered per instance: the token stayed cached
}

// A header is the client's bytes: a token that is not UTF-8 is one more unknown token.
BOOST_AUTO_TEST_CASE(a_token_that_is_not_utf8_is_401) {
  fake_api api;
  k8s::delegated_access access(api.sender());
  auto d = access.check("Bearer \xff\xfe\x80", "get", "/metrics", t0);
  BOOST_TEST(d.status == 401);
  BOOST_TEST(api.token_reviews.size() == 1u);
}

BOOST_AUTO_TEST_CASE(an_answer_that_is_not_a_review_is_500) {
  int calls = 0;
  k8s::delegated_access access([&](const k8s::resource&, const std::string&) -> schedopt::expected<std::string> {
    ++calls;
    return std::string{"<html>proxy error</html>"};
  });
  BOOST_TEST(access.check("Bearer x", "get", "/metrics", t0).status == 500);
  BOOST_TEST(access.check("Bearer x", "get", "/metrics", t0).status == 500);
  BOOST_TEST(calls == 2);
}

BOOST_AUTO_TEST_SUITE_END()
