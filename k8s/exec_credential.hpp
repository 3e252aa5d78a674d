// Credentials from a kubeconfig user's `exec` plugin (client.authentication.k8s.io v1 and
// v1beta1), as client-go's plugin/pkg/client/auth/exec/exec.go runs them: the command with
// its args, the process environment plus the user's env and KUBERNETES_EXEC_INFO, stdout
// an ExecCredential. Unlike client-go the run is bounded (time and output) and stdin is
// never handed over: schedopt runs unattended.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/error.hpp"

namespace schedopt::k8s {

/// A kubeconfig user's `exec` stanza (client-go tools/clientcmd/api/types.go ExecConfig)
/// plus what provideClusterInfo hands over of the context's cluster.
struct exec_config {
  std::string command; // a relative path with a '/' is already resolved against its kubeconfig
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string api_version; // client.authentication.k8s.io/v1 or /v1beta1
  std::string install_hint;
  bool provide_cluster_info = false;
  std::string user;        // kubeconfig user name, for errors
  std::string server;      // the context's cluster, sent only with provideClusterInfo
  std::string ca_data;     // PEM text
  bool insecure_skip_tls_verify = false;
};

struct exec_limits {
  std::chrono::milliseconds timeout{30000};  // a hung plugin must not hang every request
  std::size_t max_output = std::size_t{1} << 20; // stdout and stderr each
};

struct exec_credential {
  std::string token;
  std::string client_cert_data; // PEM text
  std::string client_key_data;  // PEM text
  /// No value: valid until the server answers 401.
  std::optional<std::chrono::system_clock::time_point> expires;
};

/// The ExecCredential request put in KUBERNETES_EXEC_INFO (spec.interactive false).
std::string exec_info_json(const exec_config& cfg);

/// Reads the plugin's stdout; errors are one line naming the plugin.
expected<exec_credential> parse_exec_credential(std::string_view out, const exec_config& cfg);

/// Runs the plugin once (posix_spawn, no shell). Errors (ec::config_error) are one line:
/// `exec plugin "cmd" (user "u"): ...`, with the first stderr line on a non-zero exit and
/// the install hint when the command is missing.
expected<exec_credential> run_exec_plugin(const exec_config& cfg, const exec_limits& limits = {});

/// One plugin's cached credential, shared by every request of a client; thread-safe
/// (client-go's Authenticator: one run at a time, under a mutex).
class exec_credential_source {
public:
  explicit exec_credential_source(exec_config cfg, exec_limits limits = {});

  /// The cached credential, from a new run when there is none or it has expired.
  expected<exec_credential> get();

  /// After a 401 to a request sent with `token_used`: runs the plugin again unless another
  /// request already rotated the credential (client-go's maybeRefreshCreds).
  expected<exec_credential> refresh_after_unauthorized(const std::string& token_used);

  /// Plugin runs so far.
  std::size_t runs() const;

  const exec_config& config() const { return cfg_; }

private:
  expected<exec_credential> run_locked();

  exec_config cfg_;
  exec_limits limits_;
  mutable std::mutex mutex_;
  std::optional<exec_credential> cached_;
  std::size_t runs_ = 0;
};

} // namespace schedopt::k8s
