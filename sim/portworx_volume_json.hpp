// One SdkVolumeInspectResponse as the gateway writes it, appended to a body. The bulk
// InspectWithFilters answers every volume at once: building an nlohmann tree per volume
// and dumping it dominated writing the answer, so the constant parts are written as text
// and only the strings go through nlohmann's escaping. The bytes are the ones `dump()` of
// the tree would give (keys in sorted order), which test_sim checks against such a tree.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "sim/storage_backend.hpp"

namespace schedopt::sim {

/// Kubernetes node name → its Portworx node id and pool, read once per answer.
struct px_node_ref {
  std::string px_id;
  std::string pool_uuid;
};
using px_node_directory = std::unordered_map<std::string, px_node_ref>;
px_node_directory px_node_directory_of(const storage_backend& storage);

/// Appends {"labels":…,"name":…,"volume":{…}}. `extra_node_id`: one more replica on a
/// node id nobody knows (the unknown_replica_node answer fault).
void append_volume_inspect_json(std::string& out, const storage_volume& v,
                                const px_node_directory& nodes,
                                const std::optional<std::string>& extra_node_id = std::nullopt);

} // namespace schedopt::sim
