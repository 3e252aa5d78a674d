// See served_endpoints.hpp.
#include "commands/served_endpoints.hpp"

#include <caf/send.hpp>
#include <spdlog/spdlog.h>

#include "actors/metrics_reviews.hpp"
#include "actors/system_config.hpp"

namespace schedopt {

served_endpoints::~served_endpoints() {
  metrics.reset();
  health.reset();
  if (review_client)
    caf::anon_send_exit(review_client, caf::exit_reason::user_shutdown);
}

expected<std::unique_ptr<served_endpoints>> serve_endpoints(caf::actor_system& sys,
                                                            const k8s::cluster_config& cluster,
                                                            const settings& cfg) {
  auto out = std::make_unique<served_endpoints>();
  auto health = health_server::start(cfg.health_listen);
  if (!health)
    return health.err();
  out->health = std::move(*health);
  spdlog::info("/healthz and /readyz on port {}", out->health->port());

  metrics_server_options options;
  options.listen = cfg.metrics_listen;
  options.secure = cfg.metrics_secure;
  options.cert_file = cfg.metrics_cert_file;
  options.key_file = cfg.metrics_key_file;
  if (cfg.metrics_secure) {
    auto client = spawn_review_client(sys, cluster);
    if (!client)
      return from_caf_error(client.error());
    out->review_client = *client;
    options.access = std::make_shared<k8s::delegated_access>(reviews_through(sys, *client));
  }
  auto metrics = metrics_server::start(options);
  if (!metrics)
    return metrics.err();
  out->metrics = std::move(*metrics);
  if (cfg.metrics_secure)
    spdlog::info("/metrics on port {} (HTTPS, {} certificate; each scraper's token reviewed by "
                 "the API server)",
                 out->metrics->port(), cfg.metrics_cert_file.empty() ? "self-signed" : "given");
  else
    spdlog::info("/metrics on port {} (plain HTTP, no authentication: --metrics-secure=false)",
                 out->metrics->port());
  return out;
}

} // namespace schedopt
