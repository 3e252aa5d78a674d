// See metrics_reviews.hpp.
#include "actors/metrics_reviews.hpp"

#include <caf/scoped_actor.hpp>

#include "actors/api_client_actor.hpp"
#include "actors/system_config.hpp"

namespace schedopt {

caf::expected<api_client_actor> spawn_review_client(caf::actor_system& sys,
                                                    const k8s::cluster_config& cluster) {
  api_client_options options;
  options.qps = 5; // client-go's rest.Config default
  options.burst = 10;
  options.max_pending = 64;
  options.max_retries = 4;
  options.initial_backoff = std::chrono::milliseconds(500);
  options.max_backoff = std::chrono::milliseconds(2000);
  options.request_timeout = std::chrono::milliseconds(4000);
  options.user_agent += " (metrics reviews)";
  return spawn_api_client(sys, cluster, options);
}

k8s::review_sender reviews_through(caf::actor_system& sys, api_client_actor client,
                                   std::chrono::milliseconds bound) {
  return [&sys, client, bound](const k8s::resource& kind,
                               const std::string& body) -> expected<std::string> {
    caf::scoped_actor self{sys};
    expected<std::string> out = make_error(ec::timeout, "no answer");
    self->request(client, bound, k8s::create_request{kind, "", body})
      .receive([&](const k8s::api_response& answer) { out = answer.body; },
               [&](const caf::error& err) {
                 auto e = from_caf_error(err);
                 if (e.message.empty())
                   e.message = error_message(err);
                 out = e;
               });
    return out;
  };
}

} // namespace schedopt
