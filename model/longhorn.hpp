// Longhorn's custom resources as the longhorn driver reads them (longhorn.io/v1beta2),
// and the pure part of that driver: which nodes hold a running replica of a volume.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <unordered_map>
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

/// The replicas the longhorn driver knows, by object key (uid), indexed by volume so a
/// query costs the volumes asked about, not every replica of the cluster. Keeps only the
/// three fields it answers from.
class longhorn_replica_index {
public:
  /// Adds or replaces the replica stored under `key`.
  void upsert(const std::string& key, const longhorn_replica& replica);
  void erase(const std::string& key);

  /// Nodes of the volume's replicas whose currentState is `running`, sorted, each once.
  std::vector<std::string> running_nodes(const std::string& volume) const;
  /// Replica objects of the volume in any state.
  std::size_t replica_objects(const std::string& volume) const;
  std::size_t size() const { return by_key_.size(); }

private:
  struct entry {
    std::string volume;
    std::string node;
    std::string state;
  };
  std::unordered_map<std::string, entry> by_key_;
  std::unordered_map<std::string, std::set<std::string>> keys_by_volume_;
};

} // namespace schedopt
