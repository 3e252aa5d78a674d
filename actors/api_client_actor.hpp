// The API client actor: turns k8s request structs into HTTP calls on the shared engine,
// with client-side rate limiting, a bounded queue and retries (k8s/ holds the logic).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include "actors/actors.hpp"
#include "k8s/cluster_config.hpp"

namespace schedopt {

/// Lets writes (every method but GET) go on the wire only until a time the leader elector
/// sets: each renewal moves it to the renewal's start plus renewDeadline. Checked as a
/// request is handed to the HTTP engine, so a write queued behind the rate limiter, a
/// backoff or a partition is never sent once leadership has lapsed, whatever the actors
/// are still doing.
class write_gate {
public:
  using time_point = std::chrono::steady_clock::time_point;
  void open_until(time_point until) { until_ = until.time_since_epoch().count(); }
  void close() { until_ = 0; }
  bool is_open(time_point now) const { return now.time_since_epoch().count() < until_.load(); }

private:
  std::atomic<time_point::rep> until_{0}; // closed until the first renewal
};

struct api_client_options {
  double qps = 20;                  // client-side rate limit (token bucket)
  int burst = 30;
  std::size_t max_pending = 1000;   // queued requests beyond this are rejected (too_many_requests)
  /// List pages on the wire at once, across lists: each is a body of megabytes (500
  /// VMIs) held until decoded, and the informers' first lists all start together.
  std::size_t max_list_pages_in_flight = 2;
  int max_retries = 5;              // for 429, 5xx and transport errors (k8s/retry_policy.hpp)
  std::chrono::milliseconds initial_backoff{200};
  std::chrono::milliseconds max_backoff{10000};
  std::chrono::milliseconds request_timeout{30000}; // non-watch requests
  std::chrono::seconds token_reread{60};            // token_file re-read period
  std::string user_agent = "schedopt/0.1";
  /// Set (leader election): writes fail with ec::cancelled while it is shut.
  std::shared_ptr<const write_gate> writes;
};

/// When the API server last answered this process at all (an HTTP status below 500, or
/// watch bytes); the spawn time before the first answer. /healthz reads it.
std::chrono::steady_clock::time_point last_api_answer();

/// Spawns the client (and its HTTP engine thread). Fails with ec::config_error when the
/// TLS material in `cfg` cannot be read.
caf::expected<api_client_actor> spawn_api_client(caf::actor_system& sys,
                                                 const k8s::cluster_config& cfg,
                                                 api_client_options options = {});

} // namespace schedopt
