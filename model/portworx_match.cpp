#include "model/portworx_match.hpp"

namespace schedopt {

px_volume_match::px_volume_match(const shared_list<persistent_volume>& pvs)
    : pvs_(pvs), wanted_(pvs.size()) {
  by_handle_.reserve(pvs.size());
  for (std::size_t i = 0; i < pvs.size(); ++i)
    by_handle_.emplace(pvs[i]->volume_handle, i);
}

px_volume_match::ids px_volume_match::intern(const std::vector<std::string>& node_ids) {
  ids out;
  out.reserve(node_ids.size());
  for (const auto& id : node_ids) {
    auto [i, fresh] = node_index_.try_emplace(id, static_cast<uint32_t>(node_ids_.size()));
    if (fresh)
      node_ids_.push_back(id);
    out.push_back(i->second);
  }
  return out;
}

void px_volume_match::offer(const sdk_volume& volume) {
  auto [first, last] = by_handle_.equal_range(volume.id);
  for (auto i = first; i != last; ++i) {
    auto& w = wanted_[i->second];
    if (!w.id_matched) { // the first volume of that id, as a lookup by id would find
      w.by_id = intern(volume.replica_node_ids);
      w.id_matched = true;
      ids{}.swap(w.by_name);
    }
  }
  if (volume.name.empty())
    return;
  auto [nfirst, nlast] = by_handle_.equal_range(volume.name);
  for (auto i = nfirst; i != nlast; ++i) {
    auto& w = wanted_[i->second];
    if (!w.id_matched && !w.name_matched) {
      w.by_name = intern(volume.replica_node_ids);
      w.name_matched = true;
    }
  }
}

void px_volume_match::record(std::size_t index, const std::vector<std::string>& replica_node_ids) {
  auto& w = wanted_.at(index);
  w.by_id = intern(replica_node_ids);
  w.id_matched = true;
}

void px_volume_match::visit(
  const std::function<void(const persistent_volume&, const std::vector<const std::string*>&)>& found,
  const std::function<void(const persistent_volume&)>& missing) const {
  std::vector<const std::string*> nodes;
  for (std::size_t i = 0; i < pvs_.size(); ++i) {
    const auto& w = wanted_[i];
    if (!w.id_matched && !w.name_matched) {
      missing(*pvs_[i]);
      continue;
    }
    nodes.clear();
    for (auto n : w.id_matched ? w.by_id : w.by_name)
      nodes.push_back(&node_ids_[n]);
    found(*pvs_[i], nodes);
  }
}

} // namespace schedopt
