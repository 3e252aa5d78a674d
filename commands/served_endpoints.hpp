// What `schedopt run` serves besides its work: the kubelet's probes on --health-listen
// and /metrics on --metrics-listen, each a server of its own (docs/design.md §4.6).
#pragma once

#include <memory>

#include <caf/actor_system.hpp>

#include "actors/actors.hpp"
#include "actors/health_server.hpp"
#include "actors/metrics_server.hpp"
#include "config/settings.hpp"
#include "k8s/cluster_config.hpp"
#include "model/error.hpp"

namespace schedopt {

struct served_endpoints {
  std::unique_ptr<health_server> health;
  std::unique_ptr<metrics_server> metrics;
  api_client_actor review_client; // secure /metrics only

  served_endpoints() = default;
  served_endpoints(const served_endpoints&) = delete;
  served_endpoints& operator=(const served_endpoints&) = delete;
  /// The servers stop first (no handler waits on a review any more), then the client.
  ~served_endpoints();
};

/// Starts both servers; with cfg.metrics_secure, /metrics asks the API server about
/// each scraper with the credentials in `cluster`. Logs the ports.
expected<std::unique_ptr<served_endpoints>> serve_endpoints(caf::actor_system& sys,
                                                            const k8s::cluster_config& cluster,
                                                            const settings& cfg);

} // namespace schedopt
