// The wire of delegated authentication and authorization: the bearer token of a request,
// TokenReview and SubjectAccessReview bodies and answers (authentication.k8s.io/v1,
// authorization.k8s.io/v1). No I/O; k8s/delegated_access.hpp sends them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "k8s/api_types.hpp"
#include "model/error.hpp"

namespace schedopt::k8s {

namespace resources {
inline const resource token_reviews{"authentication.k8s.io", "v1", "tokenreviews", false};
inline const resource subject_access_reviews{"authorization.k8s.io", "v1", "subjectaccessreviews",
                                             false};
} // namespace resources

/// Who a token belongs to, as a TokenReview's status.user names them.
struct reviewed_user {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

/// The token of an `Authorization: Bearer <token>` header; nullopt when there is none.
/// Follows k8s.io/apiserver pkg/authentication/request/bearertoken/bearertoken.go,
/// AuthenticateRequest: the header trimmed, split on single spaces into at most three
/// parts, the scheme compared without case, and an empty token ("Bearer  x") is none.
std::optional<std::string> bearer_token(std::string_view authorization_header);

/// A TokenReview of `token` with no audiences: the API server's own apply, as the
/// delegating authenticator controller-runtime builds sends it.
std::string token_review_body(const std::string& token);

struct token_review_answer {
  bool authenticated = false;
  reviewed_user user;
  std::string error; // status.error: why the API server did not authenticate the token
};

/// A TokenReview as the API server answered it; an error when the body is not one.
expected<token_review_answer> read_token_review(std::string_view body);

/// The spec of a SubjectAccessReview asking whether `user` may `verb` the non-resource
/// URL `path`, as k8s.io/apiserver plugin/pkg/authorizer/webhook/webhook.go, Authorize,
/// fills it. Also the key answers are cached under.
std::string access_review_spec(const reviewed_user& user, const std::string& verb,
                               const std::string& path);

/// The whole SubjectAccessReview around a spec of access_review_spec.
std::string access_review_body(const std::string& spec);

struct access_review_answer {
  bool allowed = false;
  bool denied = false;
  std::string reason;
};

/// A SubjectAccessReview as the API server answered it; an error when the body is not one.
expected<access_review_answer> read_access_review(std::string_view body);

} // namespace schedopt::k8s
