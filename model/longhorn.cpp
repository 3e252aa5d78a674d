// Longhorn replica CR fields (the metadata is read by model/decode.cpp like every
// object's) and the replica index the longhorn driver answers from.
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

void longhorn_replica_index::upsert(const std::string& key, const longhorn_replica& replica) {
  erase(key);
  by_key_[key] = entry{replica.volume_name, replica.node_id, replica.current_state};
  keys_by_volume_[replica.volume_name].insert(key);
}

void longhorn_replica_index::erase(const std::string& key) {
  auto i = by_key_.find(key);
  if (i == by_key_.end())
    return;
  auto v = keys_by_volume_.find(i->second.volume);
  if (v != keys_by_volume_.end()) {
    v->second.erase(key);
    if (v->second.empty())
      keys_by_volume_.erase(v);
  }
  by_key_.erase(i);
}

std::vector<std::string> longhorn_replica_index::running_nodes(const std::string& volume) const {
  std::vector<std::string> out;
  auto v = keys_by_volume_.find(volume);
  if (v == keys_by_volume_.end())
    return out;
  for (const auto& key : v->second) {
    const auto& e = by_key_.at(key);
    if (e.state == "running" && !e.node.empty())
      out.push_back(e.node);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::size_t longhorn_replica_index::replica_objects(const std::string& volume) const {
  auto v = keys_by_volume_.find(volume);
  return v == keys_by_volume_.end() ? 0 : v->second.size();
}

} // namespace schedopt
