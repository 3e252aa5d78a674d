// See delegated_access.hpp. The order of checks and the answers' texts follow
// controller-runtime pkg/metrics/filters/filters.go (WithAuthenticationAndAuthorization);
// the caches follow k8s.io/apiserver pkg/authentication/token/cache
// (cached_token_authenticator.go, doAuthenticateToken) and
// plugin/pkg/authorizer/webhook/webhook.go (Authorize).
#include "k8s/delegated_access.hpp"

#include <optional>
#include <random>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

namespace schedopt::k8s {

namespace {

std::string random_key() {
  std::string key(32, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()), static_cast<int>(key.size())) != 1) {
    // Only a broken OpenSSL gets here; the key then still differs per process.
    std::random_device rd;
    for (auto& c : key)
      c = static_cast<char>(rd());
  }
  return key;
}

/// What k8s.io/apiserver pkg/authentication/group/authenticated_group_adder.go does to
/// the user the token authenticator returns: system:authenticated joins its groups
/// unless it is anonymous or already in either all-users group.
reviewed_user with_authenticated_group(reviewed_user user) {
  if (user.name == "system:anonymous")
    return user;
  for (const auto& g : user.groups)
    if (g == "system:authenticated" || g == "system:unauthenticated")
      return user;
  user.groups.push_back("system:authenticated");
  return user;
}

access_decision answer(int status, std::string body, std::string user, std::string why) {
  return access_decision{status, std::move(body) + "\n", std::move(user), std::move(why)};
}

} // namespace

delegated_access::delegated_access(review_sender send, access_cache_ttls ttls)
  : send_(std::move(send)), ttls_(ttls), hmac_key_(random_key()) {}

std::string delegated_access::token_key(const std::string& token) const {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), hmac_key_.data(), static_cast<int>(hmac_key_.size()),
       reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest, &length);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

std::size_t delegated_access::reviews_sent() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return reviews_sent_;
}

access_decision delegated_access::check(const std::string& authorization_header,
                                        const std::string& verb, const std::string& path,
                                        clock::time_point now) {
  auto token = bearer_token(authorization_header);
  if (!token)
    return answer(401, "Unauthorized", "", "no bearer token");

  // -- authentication --
  const auto key = token_key(*token);
  std::optional<token_entry> known;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    if (auto* cached = tokens_.find(key); cached && cached->expires > now)
      known = *cached;
  }
  std::string rejected_because = "the TokenReview did not authenticate the token";
  if (!known) {
    {
      std::lock_guard<std::mutex> guard{mutex_};
      ++reviews_sent_;
    }
    auto sent = send_(resources::token_reviews, token_review_body(*token));
    if (!sent)
      return answer(500, "Authentication failed", "", "TokenReview: " + sent.err().message);
    auto review = read_token_review(*sent);
    if (!review)
      return answer(500, "Authentication failed", "", review.err().message);
    token_entry entry;
    entry.authenticated = review->authenticated;
    entry.user = review->user;
    // A rejection that carries an error may be the API server's own trouble (an
    // authenticator webhook it could not reach): like any failed lookup, not cached.
    if (review->authenticated || review->error.empty()) {
      entry.expires = now + (review->authenticated ? ttls_.authenticated : ttls_.unauthenticated);
      std::lock_guard<std::mutex> guard{mutex_};
      tokens_.put(key, entry);
    }
    if (!review->error.empty())
      rejected_because = review->error;
    known = std::move(entry);
  }
  if (!known->authenticated)
    return answer(401, "Unauthorized", "", rejected_because);

  // -- authorization --
  const auto user = with_authenticated_group(known->user);
  const auto spec = access_review_spec(user, verb, path);
  std::optional<access_review_answer> decided;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    if (auto* cached = access_.find(spec); cached && cached->expires > now)
      decided = cached->answer;
  }
  if (!decided) {
    {
      std::lock_guard<std::mutex> guard{mutex_};
      ++reviews_sent_;
    }
    auto sent = send_(resources::subject_access_reviews, access_review_body(spec));
    auto failed = [&](const std::string& why) {
      return answer(500, "Authorization for user " + user.name + " failed", user.name,
                    "SubjectAccessReview: " + why);
    };
    if (!sent)
      return failed(sent.err().message);
    auto review = read_access_review(*sent);
    if (!review)
      return failed(review.err().message);
    access_entry entry{now + (review->allowed ? ttls_.allowed : ttls_.denied), *review};
    {
      std::lock_guard<std::mutex> guard{mutex_};
      access_.put(spec, entry);
    }
    decided = *review;
  }
  if (decided->allowed && decided->denied) // webhook.go: an error, which filters.go answers 500
    return answer(500, "Authorization for user " + user.name + " failed", user.name,
                  "the SubjectAccessReview both allowed and denied");
  if (!decided->allowed)
    return answer(403, "Authorization denied for user " + user.name, user.name,
                  decided->reason.empty() ? "not allowed" : decided->reason);
  return access_decision{200, "", user.name, decided->reason};
}

} // namespace schedopt::k8s
