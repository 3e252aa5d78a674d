// The attached simulator's client of a real API server (schedopt-sim attach): the
// kubeconfig's server, CA and token; object reads and writes (upstream_api), lists,
// watches and server-side apply. Blocking calls, safe from any thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/error.hpp"
#include "sim/upstream_api.hpp"

namespace schedopt::sim {

/// What a kubeconfig's current context says about the server and the user.
struct upstream_endpoint {
  std::string server;  // https://host:port
  std::string ca_file; // empty: the system's trust store
  std::string token;
};

/// Reads the current context of the kubeconfig at `path`: server, certificate-authority
/// (a file, or -data written to a file beside the process), token or tokenFile.
expected<upstream_endpoint> read_kubeconfig(const std::string& path);

/// A page of a list: the items and the list's resourceVersion.
struct upstream_list {
  std::vector<nlohmann::json> items;
  std::string resource_version;
};

class upstream_client : public upstream_api {
public:
  explicit upstream_client(upstream_endpoint endpoint, std::string user_agent = "schedopt-sim");
  ~upstream_client() override;

  expected<nlohmann::json> create(const resource_type& type, const nlohmann::json& object) override;
  expected<nlohmann::json> update(const resource_type& type, const nlohmann::json& object,
                                  bool status_only) override;
  expected<nlohmann::json> get(const resource_type& type, const std::string& ns,
                               const std::string& name) override;
  expected<nlohmann::json> post_subresource(const resource_type& type, const std::string& ns, const std::string& name,
                                            const std::string& subresource, const nlohmann::json& body) override;
  expected<std::optional<nlohmann::json>> remove(const resource_type& type, const std::string& ns,
                                                 const std::string& name, int64_t grace_seconds) override;

  /// Every object of `type` in every namespace, read in pages.
  expected<upstream_list> list(const resource_type& type);

  /// Streams watch events of `type` from `resource_version` (bookmarks asked for) until
  /// the watch ends, `on_event` returns false or `stop` is set. The error is the
  /// server's (ec::gone for 410 Expired) or the transport's; nothing when it just ended.
  std::optional<error> watch(const resource_type& type, const std::string& resource_version,
                             const std::function<bool(const std::string& type, nlohmann::json object)>& on_event,
                             const std::atomic<bool>& stop);

  /// Ends every watch under way (set their `stop` first, or they start again).
  void cancel_watches();

  /// Server-side apply of a whole object (application/apply-patch+yaml takes JSON), as
  /// virt-operator installs KubeVirt's CRDs; `force` takes over conflicting fields.
  expected<nlohmann::json> apply(const std::string& path, const nlohmann::json& object,
                                 const std::string& field_manager, bool force);

  /// One request; the JSON answer when 2xx, else the server's Status as an error.
  expected<nlohmann::json> call(const std::string& method, const std::string& path,
                                const std::string& body = {},
                                const std::string& content_type = "application/json");

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// The collection path of `type` (`ns` empty: every namespace, or cluster-scoped).
std::string collection_path(const resource_type& type, const std::string& ns = {});
/// The path of one object of `type`.
std::string object_path(const resource_type& type, const std::string& ns, const std::string& name);

} // namespace schedopt::sim
