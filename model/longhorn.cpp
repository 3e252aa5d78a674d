// Longhorn replica CR fields (the metadata is read by model/decode.cpp like every
// object's) and the running-replica index the longhorn driver answers from.
#include "model/longhorn.hpp"

#include <algorithm>

#include "model/decode_reader.hpp"

namespace schedopt {

namespace detail {

// Called by model/decode.cpp's read_into(longhorn_replica&) after the metadata.
void read_longhorn_replica(decode_reader& r, const json_object& root, longhorn_replica& out) {
  auto spec = r.child(root, "spec");
  r.read(spec, "volumeName", out.volume_name);
  r.read(spec, "nodeID", out.node_id);
  r.read(r.child(root, "status"), "currentState", out.current_state);
}

} // namespace detail

longhorn_replica_index index_longhorn_replicas(const std::vector<longhorn_replica>& replicas) {
  longhorn_replica_index out;
  for (const auto& r : replicas) {
    if (r.volume_name.empty())
      continue;
    ++out.replica_objects[r.volume_name];
    if (r.current_state != "running" || r.node_id.empty())
      continue;
    auto& nodes = out.running_nodes[r.volume_name];
    if (std::find(nodes.begin(), nodes.end(), r.node_id) == nodes.end())
      nodes.push_back(r.node_id);
  }
  for (auto& [_, nodes] : out.running_nodes)
    std::sort(nodes.begin(), nodes.end());
  return out;
}

} // namespace schedopt
