// Leader election on a coordination.k8s.io/v1 Lease with client-go's semantics.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <caf/actor_system.hpp>

#include "actors/actors.hpp"
#include "actors/api_client_actor.hpp"

namespace schedopt {

struct leader_election_options {
  std::string namespace_ = "default";
  std::string lease_name = "schedopt-leader";
  std::string identity; // unique per replica (pod name + random suffix)
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  /// Opened on each renewal until its start plus renew_deadline, shut on stepping down;
  /// the controller's API client sends writes only while it is open.
  std::shared_ptr<write_gate> writes;
};

/// Spawns the elector; it starts trying to acquire at once. `client` should be the
/// elector's alone (its own connection and rate limit, no retries, a request timeout of
/// renew_deadline), so a renewal never waits behind the controller's traffic.
leader_elector_actor spawn_leader_elector(caf::actor_system& sys, api_client_actor client,
                                          leader_election_options options);

} // namespace schedopt
