// Retry decisions, after client-go's rest client and made safe for writes.
#include "k8s/retry_policy.hpp"

#include <string>
#include <string_view>

#include <simdjson.h>

namespace schedopt::k8s {

namespace {

/// Whether metadata.<field> of a JSON object body is a non-empty string.
bool has_metadata_string(const std::string& body, std::string_view field) {
  simdjson::padded_string copy{body};
  simdjson::ondemand::parser parser;
  auto doc = parser.iterate(copy);
  simdjson::ondemand::object root;
  if (doc.get_object().get(root))
    return false;
  simdjson::ondemand::object meta;
  if (root.find_field_unordered("metadata").get_object().get(meta))
    return false;
  std::string_view value;
  return !meta.find_field_unordered(field).get_string().get(value) && !value.empty();
}

/// A JSON patch whose first operation is a `test`: only the first element is read.
bool first_op_is_test(const std::string& body) {
  simdjson::padded_string copy{body};
  simdjson::ondemand::parser parser;
  auto doc = parser.iterate(copy);
  simdjson::ondemand::array ops;
  if (doc.get_array().get(ops))
    return false;
  for (auto element : ops) {
    simdjson::ondemand::object op;
    if (element.get_object().get(op))
      return false;
    std::string_view name;
    return !op.find_field_unordered("op").get_string().get(name) && name == "test";
  }
  return false;
}

/// DeleteOptions with a uid or resourceVersion precondition.
bool has_preconditions(const std::string& body) {
  if (body.empty())
    return false;
  simdjson::padded_string copy{body};
  simdjson::ondemand::parser parser;
  auto doc = parser.iterate(copy);
  simdjson::ondemand::object root;
  if (doc.get_object().get(root))
    return false;
  simdjson::ondemand::object pre;
  if (root.find_field_unordered("preconditions").get_object().get(pre))
    return false;
  for (auto field : pre) {
    std::string_view key, value;
    if (field.unescaped_key().get(key))
      return false;
    if ((key == "uid" || key == "resourceVersion") && !field.value().get_string().get(value)
        && !value.empty())
      return true;
  }
  return false;
}

/// A POST to authentication.k8s.io or authorization.k8s.io: every resource of both
/// groups is a review (TokenReview, SubjectAccessReview and their self and local kinds)
/// the API server answers and never stores, so a replay only asks again.
bool is_review(const std::string& target) {
  return target.rfind("/apis/authentication.k8s.io/", 0) == 0
         || target.rfind("/apis/authorization.k8s.io/", 0) == 0;
}

} // namespace

bool replay_is_harmless(const http_call& call) {
  if (call.method == "GET")
    return true;
  if (call.method == "PUT")
    return has_metadata_string(call.body, "resourceVersion");
  if (call.method == "PATCH")
    return call.content_type == "application/json-patch+json" && first_op_is_test(call.body);
  if (call.method == "DELETE")
    return has_preconditions(call.body);
  if (call.method == "POST")
    return has_metadata_string(call.body, "name") || is_review(call.target);
  return false;
}

retry_decision decide_retry(const attempt_result& a, bool replay_harmless) {
  if (a.http_status == 0) {
    // Follows client-go v0.36.3 rest/request.go, (*Request).request: its isErrRetryableFunc
    // retries a connection reset or lost connection only for GET, since writes "are not
    // idempotent". A write the server recognises on replay is safe to send again too, and
    // so is one nothing of which left, as Go's net/http transport retries those.
    if (!a.request_sent)
      return {true, "the request was never sent"};
    if (replay_harmless)
      return {true, "no answer; a replay is harmless"};
    return {false, "no answer, and the request may have reached the server: a replay could "
                   "repeat its write"};
  }
  // Follows client-go v0.36.3 rest/with_retry.go, withRetry.IsNextRetry and checkWait: a
  // 429 or 5xx with Retry-After is retried whatever the verb. kube-apiserver sends
  // Retry-After where it refused a request before any handler ran (429 from priority and
  // fairness or max-in-flight, 503 while shutting down), so such a replay is harmless. A
  // 429 without it (a proxy's) was refused just the same, and waits for the backoff.
  if (a.http_status == 429)
    return {true, "too many requests"};
  if (a.http_status < 500 || a.http_status > 599)
    return {false, "not a retryable answer"};
  if (a.http_status == 503 && a.retry_after)
    return {true, "unavailable, with Retry-After"};
  // Other 5xx may follow a commit: kube-apiserver's storage/errors.go answers an etcd
  // timeout on a write with 500 ServerTimeout and Retry-After, and its timeout filter
  // answers 504 while the handler may still commit. client-go retries the first for any
  // verb and no 5xx without Retry-After; here a 5xx is retried exactly when its replay is
  // harmless (reads included, which client-go's callers requeue).
  if (a.http_status == 501 && !a.retry_after)
    return {false, "not implemented"};
  if (replay_harmless)
    return {true, "server error; a replay is harmless"};
  return {false, "server error that may follow a commit: a replay could repeat the write"};
}

} // namespace schedopt::k8s
