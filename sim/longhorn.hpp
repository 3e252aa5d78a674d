// Longhorn as the simulator plays it (docs/simulator.md, driver longhorn): a Volume CR
// per volume and a Replica CR per replica in longhorn-system, rebuilt on another node
// after a pool failover the way Longhorn's volume controller does it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/error.hpp"

namespace schedopt::sim {

class object_store;
struct storage_volume;
struct replica_move;

constexpr const char* longhorn_namespace = "longhorn-system";
constexpr const char* longhorn_replica_key = "replicas.longhorn.io";
constexpr const char* longhorn_volume_key = "volumes.longhorn.io";

/// Replica and Volume (longhorn.io/v1beta2, namespaced, /status), unless a CRD
/// manifest registered them already.
void register_longhorn_types(object_store& store);

/// The Replica CR `name` of `volume` on `node`; `state` is status.currentState.
nlohmann::json longhorn_replica_object(const std::string& name, const std::string& volume,
                                       const std::string& node, const std::string& state);
/// The Volume CR of `volume`, attached to `attached_node` ("" detached).
nlohmann::json longhorn_volume_object(const storage_volume& volume, const std::string& attached_node);

/// Replica names are `<volume>-r-<8 hex>`, stable for (volume, node, generation).
std::string longhorn_replica_name(const std::string& volume, const std::string& node, int generation);

/// The longhorn-system namespace, the Volume CR and one running Replica per replica
/// node of `volume` (its name is the Longhorn volume name = the PV's volumeHandle).
expected<bool> create_longhorn_volume(object_store& store, const storage_volume& volume,
                                      const std::string& attached_node);

/// After a failover, per move of a Longhorn volume: a new Replica on `to_node` is
/// created `starting`, then becomes `running` once rebuilt; the Replica on
/// `from_node` is stopped, then deleted. Each step is its own write, so watchers see
/// the same sequence of events Longhorn produces.
expected<bool> rebuild_longhorn_replicas(object_store& store, const std::vector<replica_move>& moves);

/// Sorted nodes of the running Replica CRs of `volume` (tests and tools).
std::vector<std::string> longhorn_running_nodes(const object_store& store, const std::string& volume);

} // namespace schedopt::sim
