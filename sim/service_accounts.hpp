// ServiceAccount tokens the simulator issues (--service-account NS/NAME) and the files
// the kubelet would mount for them, so a controller runs "in cluster" against it.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "model/error.hpp"
#include "sim/request_attributes.hpp"

namespace schedopt::sim {

class object_store;

/// Filled before the API server starts and only read while it serves, so lookups need
/// no lock.
class service_account_tokens {
public:
  /// Creates namespace `ns` and ServiceAccount `ns/name` in `store` when missing and
  /// issues the account a token (JWT-shaped, with the claims a bound token carries; the
  /// signature is random bytes, which is what makes it unguessable).
  expected<std::string> issue(object_store& store, const std::string& ns, const std::string& name);

  /// The account a token was issued to, as long as that ServiceAccount still exists with
  /// the uid it had then (a bound token dies with its account): user
  /// system:serviceaccount:<ns>:<name> in groups system:serviceaccounts,
  /// system:serviceaccounts:<ns> and system:authenticated.
  std::optional<user_info> authenticate(const object_store& store, const std::string& token) const;

private:
  struct account {
    std::string ns, name, uid;
  };
  std::map<std::string, account> tokens_;
};

/// Writes `token`, `ca.crt` and `namespace` into `dir` (created if missing) as the kubelet
/// mounts them under /var/run/secrets/kubernetes.io/serviceaccount/.
expected<bool> write_service_account_dir(const std::string& dir, const std::string& token,
                                         const std::string& ca_pem, const std::string& ns);

} // namespace schedopt::sim
