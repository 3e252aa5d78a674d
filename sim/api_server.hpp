// The simulator's HTTPS Kubernetes API server (docs/simulator.md): bearer-token auth (admin and
// ServiceAccount tokens), authorization (always-allow or RBAC), discovery,
// CRUD with list paging and selectors, watch streams, PATCH flavours, /status, Tables,
// injected faults, storage compaction, and the admin endpoints POST /admin/failover,
// GET /admin/audit, /admin/answer-faults and POST /admin/compact.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "model/error.hpp"
#include "sim/answer_faults.hpp"
#include "sim/authorization.hpp"
#include "sim/discovery.hpp"
#include "sim/faults.hpp"
#include "sim/object_store.hpp"
#include "sim/partitions.hpp"
#include "sim/service_accounts.hpp"
#include "sim/tls.hpp"

namespace schedopt::sim {

struct api_server_options {
  std::string host = "127.0.0.1";
  int port = 0; // 0: any free port
  std::string token;  // the admin's, required as "Authorization: Bearer <token>"
  /// Tokens of --service-account accounts, accepted besides the admin's (may be null).
  std::shared_ptr<const service_account_tokens> service_accounts;
  /// What non-admin callers may do; the admin token is always allowed everything.
  authorization_mode authorization = authorization_mode::always_allow;
  fault_options faults;
  /// Broken answers on demand, set through /admin/answer-faults (may be null: none).
  std::shared_ptr<answer_faults> broken_answers;
  /// Network partitions by User-Agent, also set through /admin/partitions (may be null:
  /// none).
  std::shared_ptr<network_partitions> partitions;
  int threads = 64;   // long watches each hold one
  /// How often a watch with allowWatchBookmarks gets a BOOKMARK.
  std::chrono::milliseconds bookmark_interval{std::chrono::minutes(1)};
  /// How often storage compacts (0: never); POST /admin/compact compacts at once.
  std::chrono::milliseconds compaction_interval{std::chrono::minutes(5)};
};

class api_server {
public:
  api_server(object_store& store, resource_registry registry, api_server_options options);
  ~api_server();
  api_server(const api_server&) = delete;
  api_server& operator=(const api_server&) = delete;

  /// Binds and starts serving on a background thread.
  expected<bool> start(const tls_material& tls);
  /// Stops accepting, ends watch streams, joins the server thread.
  void stop();

  int port() const;
  /// "https://127.0.0.1:<port>".
  std::string url() const;

  /// POST /admin/failover[?node=X] calls this; its result is the created request's name.
  using failover_handler = std::function<expected<std::string>(const std::string& node)>;
  void set_failover_handler(failover_handler handler);
  /// POST /admin/drain?node=X calls this (`kubectl drain X` as the world simulates it).
  using drain_handler = std::function<expected<bool>(const std::string& node)>;
  void set_drain_handler(drain_handler handler);

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
