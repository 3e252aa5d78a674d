// The reviews behind /metrics sent with the controller's own credentials: a client of
// their own (its connection, rate limit and retries, no write gate, so a standby
// replica answers scrapes too), waited for on the HTTP handler's thread.
#pragma once

#include <chrono>

#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include "actors/actors.hpp"
#include "k8s/cluster_config.hpp"
#include "k8s/delegated_access.hpp"

namespace schedopt {

/// How long a scrape waits for one review: controller-runtime's TokenAccessReviewTimeout
/// (filters.go), retries included.
constexpr std::chrono::seconds review_bound{10};

/// The client the reviews go through: few requests (answers are cached for minutes),
/// each tried up to five times on 429, 5xx and lost answers from 500 ms apart, as the
/// apiserver's webhook backoff does (there x1.5, here doubling to at most 2 s), none
/// outliving review_bound.
caf::expected<api_client_actor> spawn_review_client(caf::actor_system& sys,
                                                    const k8s::cluster_config& cluster);

/// A sender for k8s::delegated_access that POSTs through `client` and blocks the calling
/// (non-actor) thread until the answer, an error, or `bound`.
k8s::review_sender reviews_through(caf::actor_system& sys, api_client_actor client,
                                   std::chrono::milliseconds bound = review_bound);

} // namespace schedopt
