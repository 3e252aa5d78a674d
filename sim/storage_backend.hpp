// The simulated storage system behind both storage drivers: Portworx-like nodes (node
// id, pool) and volumes whose replicas live on a set of Kubernetes nodes. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/error.hpp"

namespace schedopt::sim {

/// Driver names as they appear in a PV's spec.csi.driver.
constexpr const char* portworx_csi_driver = "pxd.portworx.com";
constexpr const char* topology_csi_driver = "topology.csi.schedopt.io";
constexpr const char* longhorn_csi_driver = "driver.longhorn.io";

struct storage_node {
  std::string name;      // Kubernetes node name (= scheduler_node_name)
  std::string px_id;     // Portworx node id (uuid-like)
  std::string hostname;  // same as name in the simulator
  std::string ip;        // mgmt_ip and data_ip
  std::string pool_uuid; // the node's single storage pool
};

struct storage_volume {
  std::string id;   // PV spec.csi.volumeHandle: Portworx volume id; for Longhorn its volume name
  std::string name; // locator name = PV name
  std::string pv_name;
  std::string pvc_namespace;
  std::string pvc_name;
  std::string driver;                     // portworx_csi_driver, topology_csi_driver or longhorn_csi_driver
  std::vector<std::string> replica_nodes; // Kubernetes node names, in replica order
  int64_t size_bytes = 0;
};

/// A replica that moved from one node to another during a failover.
struct replica_move {
  std::string volume_id;
  std::string from_node;
  std::string to_node;
};

class storage_backend {
public:
  void add_node(storage_node node);
  void add_volume(storage_volume volume);

  std::vector<storage_node> nodes() const;
  std::optional<storage_node> node_by_name(const std::string& name) const;
  std::optional<storage_node> node_by_px_id(const std::string& px_id) const;

  std::vector<storage_volume> volumes() const;
  /// Visits at most `count` volumes from index `from` under the lock, without copying
  /// them (the bulk inspect at 200,000 volumes; volumes are only ever appended); returns
  /// the index after the last one visited. `visit` must not call back into this backend.
  std::size_t for_each_volume(std::size_t from, std::size_t count,
                              const std::function<void(const storage_volume&)>& visit) const;
  std::optional<storage_volume> volume(const std::string& id) const;

  /// Pool failover: every replica on `node` moves to another node that holds no
  /// replica of that volume yet (chosen with `rng`); a volume with nowhere to go
  /// keeps its replica. Returns the moves made, in volume order.
  expected<std::vector<replica_move>> fail_over_node(const std::string& node, std::mt19937_64& rng);

private:
  mutable std::mutex mutex_;
  std::vector<storage_node> nodes_;
  std::vector<storage_volume> volumes_;
  std::unordered_map<std::string, std::size_t> volume_index_; // id -> position in volumes_
};

} // namespace schedopt::sim
