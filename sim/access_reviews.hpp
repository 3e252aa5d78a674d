// TokenReview and SubjectAccessReview, the two reviews a component that guards its own
// endpoint (a metrics server) sends: answered from the tokens this server accepts and the
// RBAC objects in its store, never stored.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/authorization.hpp"
#include "sim/request_attributes.hpp"

namespace schedopt::sim {

class object_store;

struct access_review_context {
  const object_store& store;
  authorization_mode mode;
  /// The user a bearer token authenticates as; nullopt for an unknown token.
  std::function<std::optional<user_info>(const std::string& token)> authenticate;
};

/// The answer to POST tokenreviews (authentication.k8s.io/v1): HTTP code and body.
std::pair<int, nlohmann::json> review_token(const access_review_context& ctx, const nlohmann::json& review);

/// The answer to POST subjectaccessreviews (authorization.k8s.io/v1): HTTP code and body.
std::pair<int, nlohmann::json> review_access(const access_review_context& ctx, const nlohmann::json& review);

/// The answer to POST selfsubjectaccessreviews: `review` asked about `requester`.
std::pair<int, nlohmann::json> review_own_access(const access_review_context& ctx, const nlohmann::json& review,
                                                 const user_info& requester);

/// The answer to POST selfsubjectreviews (authentication.k8s.io/v1): who `requester` is.
std::pair<int, nlohmann::json> review_self(const user_info& requester, const std::string& now);

} // namespace schedopt::sim
