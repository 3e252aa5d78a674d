// longhorn: replica nodes of Longhorn volumes from replicas.longhorn.io CRs, read
// through the driver's own informer (one list+watch in longhorn-system).
#pragma once

#include <chrono>

#include <caf/actor_system.hpp>

#include "actors/actors.hpp"

namespace schedopt {

struct longhorn_driver_options {
  /// How long a query waits for the replica informer's first list before it fails.
  std::chrono::milliseconds sync_timeout{30000};
  /// Per GET of a volumes.longhorn.io object (asked only for volumes with no running replica).
  std::chrono::milliseconds get_timeout{30000};
};

/// Spawns the driver on `replicas`, an informer of replicas.longhorn.io, and links
/// to it so it stops with the driver. `api` reads volumes.longhorn.io.
longhorn_driver_actor spawn_longhorn_driver(caf::actor_system& sys, api_client_actor api,
                                            longhorn_replica_informer_actor replicas,
                                            longhorn_driver_options options = {});

} // namespace schedopt
