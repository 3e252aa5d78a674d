// Longhorn's custom resources as the longhorn driver reads them (longhorn.io/v1beta2),
// and the pure part of that driver: which replica nodes a volume has.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/objects.hpp"

namespace schedopt {

/// The namespace Longhorn keeps its CRs in, and the CSI driver name of its PVs.
inline constexpr const char* longhorn_namespace = "longhorn-system";
inline constexpr const char* longhorn_csi_driver = "driver.longhorn.io";

/// A `replicas.longhorn.io` object: one replica of one Longhorn volume on one node.
struct longhorn_replica {
  object_meta metadata;
  std::string volume_name;   // spec.volumeName
  std::string node_id;       // spec.nodeID (a Kubernetes node name)
  std::string current_state; // status.currentState: running, starting, stopped, error, ...
};

/// Longhorn replica nodes by volume name: only replicas whose currentState is
/// `running` count; nodes sorted, each once. `volumes_with_replicas` also names the
/// volumes that have replica objects none of which runs (they are known to Longhorn).
struct longhorn_replica_index {
  std::map<std::string, std::vector<std::string>> running_nodes;
  std::map<std::string, int> replica_objects;
};

longhorn_replica_index index_longhorn_replicas(const std::vector<longhorn_replica>& replicas);

} // namespace schedopt
