// Storage backend bookkeeping and the pool-failover replica shuffle.
#include "sim/storage_backend.hpp"

#include <algorithm>

namespace schedopt::sim {

void storage_backend::add_node(storage_node node) {
  std::lock_guard<std::mutex> guard{mutex_};
  nodes_.push_back(std::move(node));
}

void storage_backend::add_volume(storage_volume volume) {
  std::lock_guard<std::mutex> guard{mutex_};
  volume_index_.emplace(volume.id, volumes_.size());
  volumes_.push_back(std::move(volume));
}

std::vector<storage_node> storage_backend::nodes() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return nodes_;
}

std::optional<storage_node> storage_backend::node_by_name(const std::string& name) const {
  std::lock_guard<std::mutex> guard{mutex_};
  for (const auto& n : nodes_)
    if (n.name == name)
      return n;
  return std::nullopt;
}

std::optional<storage_node> storage_backend::node_by_px_id(const std::string& px_id) const {
  std::lock_guard<std::mutex> guard{mutex_};
  for (const auto& n : nodes_)
    if (n.px_id == px_id)
      return n;
  return std::nullopt;
}

std::vector<storage_volume> storage_backend::volumes() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return volumes_;
}

std::size_t storage_backend::for_each_volume(
  std::size_t from, std::size_t count,
  const std::function<void(const storage_volume&)>& visit) const {
  std::lock_guard<std::mutex> guard{mutex_};
  auto end = std::min(volumes_.size(), from + count);
  for (auto i = from; i < end; ++i)
    visit(volumes_[i]);
  return std::max(from, end);
}

std::optional<storage_volume> storage_backend::volume(const std::string& id) const {
  std::lock_guard<std::mutex> guard{mutex_};
  auto it = volume_index_.find(id);
  if (it == volume_index_.end())
    return std::nullopt;
  return volumes_[it->second];
}

expected<std::vector<replica_move>> storage_backend::fail_over_node(const std::string& node,
                                                                    std::mt19937_64& rng) {
  std::lock_guard<std::mutex> guard{mutex_};
  auto known = std::any_of(nodes_.begin(), nodes_.end(), [&](const auto& n) { return n.name == node; });
  if (!known)
    return make_error(ec::not_found, "storage node \"" + node + "\" not found");
  std::vector<replica_move> moves;
  for (auto& vol : volumes_) {
    auto held = std::find(vol.replica_nodes.begin(), vol.replica_nodes.end(), node);
    if (held == vol.replica_nodes.end())
      continue;
    std::vector<std::string> candidates;
    for (const auto& n : nodes_)
      if (std::find(vol.replica_nodes.begin(), vol.replica_nodes.end(), n.name) == vol.replica_nodes.end())
        candidates.push_back(n.name);
    if (candidates.empty())
      continue; // every node already holds a replica: nowhere to rebuild it
    std::uniform_int_distribution<std::size_t> pick{0, candidates.size() - 1};
    const auto& target = candidates[pick(rng)];
    moves.push_back({vol.id, node, target});
    *held = target;
  }
  return moves;
}

} // namespace schedopt::sim
