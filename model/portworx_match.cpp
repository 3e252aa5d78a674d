#include "model/portworx_match.hpp"

#include <algorithm>
#include <limits>

namespace schedopt {

namespace {

using handle_entry = std::pair<std::string_view, std::size_t>;

// The PVs whose handle is `key`, in pvs' order (by_handle is sorted by handle, then index).
template <class Vector>
auto handles_equal_to(const Vector& by_handle, std::string_view key) {
  return std::equal_range(
    by_handle.begin(), by_handle.end(), handle_entry{key, 0},
    [](const handle_entry& a, const handle_entry& b) { return a.first < b.first; });
}

} // namespace

px_volume_match::px_volume_match(const shared_list<persistent_volume>& pvs)
    : pvs_(pvs), wanted_(pvs.size()) {
  by_handle_.reserve(pvs.size());
  ids_.reserve(pvs.size() * 3); // replicas per volume: Portworx has at most 3
  for (std::size_t i = 0; i < pvs.size(); ++i)
    by_handle_.emplace_back(pvs[i]->volume_handle, i);
  std::sort(by_handle_.begin(), by_handle_.end());
}

void px_volume_match::take(wanted& w, matched how, const std::vector<std::string>& node_ids) {
  // A volume has a few replicas (Portworx: at most 3); a gateway naming more than a
  // wanted entry can count is cut to what fits.
  auto n = std::min<std::size_t>(node_ids.size(), std::numeric_limits<uint16_t>::max());
  w.first = static_cast<uint32_t>(ids_.size());
  w.count = static_cast<uint16_t>(n);
  w.how = how;
  for (std::size_t k = 0; k < n; ++k) {
    const auto& id = node_ids[k];
    auto [i, fresh] = node_index_.try_emplace(id, static_cast<uint32_t>(node_ids_.size()));
    if (fresh)
      node_ids_.push_back(id);
    ids_.push_back(i->second);
  }
}

void px_volume_match::offer(const sdk_volume& volume) {
  auto [first, last] = handles_equal_to(by_handle_, volume.id);
  for (auto i = first; i != last; ++i) {
    auto& w = wanted_[i->second];
    if (w.how != matched::by_id) // the first volume of that id, as a lookup by id would find
      take(w, matched::by_id, volume.replica_node_ids);
  }
  if (volume.name.empty())
    return;
  auto [nfirst, nlast] = handles_equal_to(by_handle_, volume.name);
  for (auto i = nfirst; i != nlast; ++i) {
    auto& w = wanted_[i->second];
    if (w.how == matched::none)
      take(w, matched::by_name, volume.replica_node_ids);
  }
}

void px_volume_match::record(std::size_t index, const std::vector<std::string>& replica_node_ids) {
  take(wanted_.at(index), matched::by_id, replica_node_ids);
}

void px_volume_match::visit(
  const std::function<void(const persistent_volume&, const std::vector<const std::string*>&)>& found,
  const std::function<void(const persistent_volume&)>& missing) const {
  std::vector<const std::string*> nodes;
  for (std::size_t i = 0; i < pvs_.size(); ++i) {
    const auto& w = wanted_[i];
    if (w.how == matched::none) {
      missing(*pvs_[i]);
      continue;
    }
    nodes.clear();
    for (uint32_t k = 0; k < w.count; ++k)
      nodes.push_back(&node_ids_[ids_[w.first + k]]);
    found(*pvs_[i], nodes);
  }
}

} // namespace schedopt
