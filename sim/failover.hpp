// A storage pool failover as Portworx performs it: the pool's replicas are rebuilt on
// other nodes, PV node affinity follows (csi-topology), and the storage driver asks for
// a re-evaluation by creating a SchedulingOptimization.
#pragma once

#include <random>
#include <string>

#include "model/error.hpp"

namespace schedopt::sim {

class object_store;
class storage_backend;

struct failover_result {
  std::string node;          // the node whose pool failed over
  std::size_t moved = 0;     // replicas rebuilt elsewhere
  std::string request_name;  // the SchedulingOptimization created
};

/// `node` empty: a node holding at least one replica, chosen with `rng`.
expected<failover_result> fail_over_pool(object_store& store, storage_backend& storage,
                                         const std::string& node, std::mt19937_64& rng);

} // namespace schedopt::sim
