// Follows kubernetes v1.36.3 pkg/registry/authentication/tokenreview/storage.go
// (REST.Create) and pkg/registry/authorization/subjectaccessreview/rest.go (REST.Create),
// with pkg/apis/authorization/validation ValidateSubjectAccessReviewSpec; v1.37.2
// pkg/registry/authorization/selfsubjectaccessreview/rest.go (REST.Create, with
// ValidateSelfSubjectAccessReviewSpec) and pkg/registry/authentication/selfsubjectreview
// /rest.go (REST.Create). The authorizer chain is the API server's own
// (sim/authorization.hpp).
#include "sim/access_reviews.hpp"

#include <algorithm>

#include "sim/api_server_status.hpp"
#include "sim/field_errors.hpp"
#include "sim/json_fields.hpp"
#include "sim/object_store.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

/// The API server's own audience, used when a TokenReview names none.
const char* default_audience = "https://kubernetes.default.svc.cluster.local";

json answered(const json& review, const char* api_version, const char* kind, json status) {
  // The review is never stored: no name, uid or creationTimestamp.
  json out = {{"kind", kind},
              {"apiVersion", api_version},
              {"metadata", json::object()},
              {"spec", review.value("spec", json::object())},
              {"status", std::move(status)}};
  return out;
}

resource_type review_type(const char* group, const char* kind) {
  resource_type t;
  t.group = group;
  t.kind = kind;
  return t;
}

} // namespace

std::pair<int, json> review_token(const access_review_context& ctx, const json& review) {
  if (!review.is_object() || !review.value("spec", json::object()).is_object())
    return {400, status_failure(400, "BadRequest", "TokenReview body must be an object")};
  auto spec = review.value("spec", json::object());
  auto token = text_of(spec, "token");
  if (token.empty())
    return {400, status_failure(400, "BadRequest", "token is required for TokenReview in authentication")};
  json audiences = spec.contains("audiences") && spec["audiences"].is_array() && !spec["audiences"].empty()
                     ? spec["audiences"]
                     : json::array({default_audience});
  json status = {{"user", json::object()}};
  auto user = ctx.authenticate(token);
  if (!user) {
    // The token authenticator's word; the service-account one adds its own only for a
    // token that is a JWT (pkg/serviceaccount jwt.go: not a JWT is not its to refuse).
    bool jwt = std::count(token.begin(), token.end(), '.') == 2;
    status["error"] = jwt ? "[invalid bearer token, service account token has been invalidated]"
                          : "invalid bearer token";
  } else {
    status["authenticated"] = true;
    json u = {{"username", user->name}, {"groups", user->groups}};
    if (!user->uid.empty())
      u["uid"] = user->uid;
    status["user"] = u;
    status["audiences"] = audiences;
  }
  return {201, answered(review, "authentication.k8s.io/v1", "TokenReview", std::move(status))};
}

std::pair<int, json> review_access(const access_review_context& ctx, const json& review) {
  if (!review.is_object() || !review.value("spec", json::object()).is_object())
    return {400, status_failure(400, "BadRequest", "SubjectAccessReview body must be an object")};
  auto spec = review.value("spec", json::object());
  const json* res_attrs = spec.contains("resourceAttributes") && spec["resourceAttributes"].is_object()
                            ? &spec["resourceAttributes"]
                            : nullptr;
  const json* non_res = spec.contains("nonResourceAttributes") && spec["nonResourceAttributes"].is_object()
                          ? &spec["nonResourceAttributes"]
                          : nullptr;
  user_info user;
  user.name = text_of(spec, "user");
  user.uid = text_of(spec, "uid");
  if (spec.contains("groups") && spec["groups"].is_array())
    for (const auto& g : spec["groups"])
      if (g.is_string())
        user.groups.push_back(g.get<std::string>());

  std::vector<field_error> errs;
  // field.Error prints a pointer's target with %#v, and a nil one as null.
  if (res_attrs != nullptr && non_res != nullptr)
    errs.push_back(make_field_error(field_error_type::invalid, "spec.nonResourceAttributes",
                    "authorization.NonResourceAttributes{Path:" + json(text_of(*non_res, "path")).dump()
                      + ", Verb:" + json(text_of(*non_res, "verb")).dump() + "}",
                    "cannot be specified in combination with resourceAttributes"));
  if (res_attrs == nullptr && non_res == nullptr)
    errs.push_back(make_field_error(field_error_type::invalid, "spec.resourceAttributes", "null",
                                    "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  if (user.name.empty() && user.groups.empty())
    errs.push_back(make_field_error(field_error_type::invalid, "spec.user", "\"\"",
                                    "at least one of user or group must be specified"));
  if (!errs.empty()) {
    auto err = invalid_object_error(review_type("authorization.k8s.io", "SubjectAccessReview"), "", errs);
    return {422, status_for_error(err, nullptr, {})};
  }

  request_attributes attrs;
  if (res_attrs != nullptr) {
    attrs.resource_request = true;
    attrs.verb = text_of(*res_attrs, "verb");
    attrs.group = text_of(*res_attrs, "group");
    attrs.version = text_of(*res_attrs, "version");
    attrs.resource = text_of(*res_attrs, "resource");
    attrs.subresource = text_of(*res_attrs, "subresource");
    attrs.ns = text_of(*res_attrs, "namespace");
    attrs.name = text_of(*res_attrs, "name");
  } else {
    attrs.verb = text_of(*non_res, "verb");
    attrs.path = text_of(*non_res, "path");
  }
  // RBAC's allow reason names the binding it matched; the store's authorizer does not say
  // which, so the reason is left out rather than made up.
  json status = {{"allowed", authorizes(ctx.mode, ctx.store, user, attrs)}};
  return {201, answered(review, "authorization.k8s.io/v1", "SubjectAccessReview", std::move(status))};
}

std::pair<int, json> review_own_access(const access_review_context& ctx, const json& review,
                                       const user_info& requester) {
  if (!review.is_object() || !review.value("spec", json::object()).is_object())
    return {400, status_failure(400, "BadRequest", "SelfSubjectAccessReview body must be an object")};
  auto spec = review.value("spec", json::object());
  bool res_attrs = spec.contains("resourceAttributes") && spec["resourceAttributes"].is_object();
  bool non_res = spec.contains("nonResourceAttributes") && spec["nonResourceAttributes"].is_object();
  if (res_attrs == non_res) {
    // ValidateSelfSubjectAccessReviewSpec names the whole spec, its value printed as null.
    auto err = invalid_object_error(review_type("authorization.k8s.io", ""), "",
                                    {make_field_error(field_error_type::invalid, "spec", "null",
                                                      "exactly one of nonResourceAttributes or resourceAttributes "
                                                      "must be specified")});
    return {422, status_for_error(err, nullptr, {})};
  }
  // The same question asked as a SubjectAccessReview about the requester.
  json asked = review;
  asked["spec"]["user"] = requester.name;
  asked["spec"]["groups"] = requester.groups;
  if (!requester.uid.empty())
    asked["spec"]["uid"] = requester.uid;
  auto [code, answer] = review_access(ctx, asked);
  if (code != 201)
    return {code, answer};
  return {201, answered(review, "authorization.k8s.io/v1", "SelfSubjectAccessReview", answer["status"])};
}

std::pair<int, json> review_self(const user_info& requester, const std::string& now) {
  json user = {{"username", requester.name}};
  if (!requester.uid.empty())
    user["uid"] = requester.uid;
  user["groups"] = requester.groups;
  return {201, {{"kind", "SelfSubjectReview"},
                {"apiVersion", "authentication.k8s.io/v1"},
                {"metadata", {{"creationTimestamp", now}}},
                {"status", {{"userInfo", user}}}}};
}

} // namespace schedopt::sim
