// Who may read an endpoint this process serves, decided by the API server: the bearer
// token through a TokenReview, then the user through a SubjectAccessReview, answers
// cached. What controller-runtime's filters.WithAuthenticationAndAuthorization puts in
// front of /metrics (docs/design.md §4.6), without the Go apiserver library.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <string>

#include "k8s/access_reviews.hpp"
#include "model/error.hpp"
#include "model/lru_map.hpp"

namespace schedopt::k8s {

/// POSTs one review to the API server (a collection of `kind`) and returns the answer's
/// body, or why there is none (transport, 4xx, 5xx, timeout). Called on the serving
/// thread, so it must return within a bound of its own.
using review_sender = std::function<expected<std::string>(const resource& kind,
                                                          const std::string& body)>;

/// How long answers are reused. controller-runtime's filters.go sets these: the token
/// cache (k8s.io/apiserver authenticatorfactory/delegating.go passes one CacheTTL for
/// both outcomes) 1 minute, authorizer answers 5 minutes allowed and 30 seconds denied.
/// A review that failed is never cached (cacheErrs false; the authorizer caches only
/// answers).
struct access_cache_ttls {
  std::chrono::steady_clock::duration authenticated = std::chrono::minutes(1);
  std::chrono::steady_clock::duration unauthenticated = std::chrono::minutes(1);
  std::chrono::steady_clock::duration allowed = std::chrono::minutes(5);
  std::chrono::steady_clock::duration denied = std::chrono::seconds(30);
};

/// The answer for one request: the HTTP status (200 = serve it) and, otherwise, the body.
struct access_decision {
  int status = 500;
  std::string body; // controller-runtime's texts, newline-terminated as http.Error sends them
  std::string user; // whom the token named, when it named anyone
  std::string why;  // for the log: the review's error or reason
};

class delegated_access {
public:
  using clock = std::chrono::steady_clock;

  explicit delegated_access(review_sender send, access_cache_ttls ttls = {});

  /// Decides a request carrying `authorization_header` ("" when absent) for `verb`
  /// (the lower-cased HTTP method) on `path`. Thread-safe; reviews go out unlocked.
  ///
  /// 401 without a bearer token or when the TokenReview does not authenticate it; 403
  /// when the SubjectAccessReview does not allow; 500 when a review cannot be had.
  /// controller-runtime answers a token the API server rejects with 500 (bearertoken.go
  /// turns "not authenticated" into an error, which filters.go maps to 500); this
  /// answers 401 as kube-apiserver's own filter does, since the caller's credential is
  /// what is wrong, and an alert on a scrape's 5xx should mean this server is.
  access_decision check(const std::string& authorization_header, const std::string& verb,
                        const std::string& path, clock::time_point now);

  /// Reviews sent so far (both kinds); for tests of the caches.
  std::size_t reviews_sent() const;

private:
  struct token_entry {
    clock::time_point expires;
    bool authenticated = false;
    reviewed_user user;
  };
  struct access_entry {
    clock::time_point expires;
    access_review_answer answer;
  };

  /// The token cache's key: HMAC-SHA256 of the token under a key drawn at start, as
  /// k8s.io/apiserver's cached_token_authenticator.go keyFunc does, so no token is kept
  /// in memory and its keys cannot be precomputed.
  std::string token_key(const std::string& token) const;

  review_sender send_;
  access_cache_ttls ttls_;
  std::string hmac_key_;
  mutable std::mutex mutex_; // the caches and the count
  // Bounded: every distinct token or user a client sends would otherwise stay until
  // its entry expired unread (the apiserver's authorizer cache is an LRU too).
  lru_map<std::string, token_entry> tokens_{1024};
  lru_map<std::string, access_entry> access_{1024};
  std::size_t reviews_sent_ = 0;
};

} // namespace schedopt::k8s
