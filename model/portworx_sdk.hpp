// The OpenStorage SDK REST gateway's answers that the portworx driver reads (volume
// inspect, node enumerate and inspect), and the mapping of Portworx node ids onto
// Kubernetes node names. The gateway emits proto field names (replica_sets,
// scheduler_node_name); the lowerCamelCase spellings are accepted too.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/error.hpp"
#include "model/objects.hpp"

namespace schedopt {

struct sdk_volume {
  std::string id;
  std::vector<std::string> replica_node_ids; // union over replica sets
};

struct sdk_node {
  std::string id;
  std::string scheduler_node_name;
  std::string hostname;
  std::string mgmt_ip;
  std::string data_ip;
};

/// `GET /v1/volumes/inspect/{id}` → {"volume": {...}}.
expected<sdk_volume> decode_sdk_volume_inspect(std::string_view json);
/// `GET /v1/nodes` → {"node_ids": [...]}.
expected<std::vector<std::string>> decode_sdk_node_enumerate(std::string_view json);
/// `GET /v1/nodes/inspect/{id}` → {"node": {...}}.
expected<sdk_node> decode_sdk_node_inspect(std::string_view json);
/// The gateway's error body {"error"|"message": ..., "code": n} → its message.
std::string sdk_error_message(std::string_view json);

/// Portworx node id → Kubernetes node name, matching in order the scheduler node name,
/// the hostname (node name or Hostname address) and the management or data IP
/// (InternalIP/ExternalIP addresses). Unmatched ids are absent.
std::map<std::string, std::string> map_sdk_nodes(const std::vector<sdk_node>& sdk_nodes,
                                                 const std::vector<node>& nodes);

} // namespace schedopt
