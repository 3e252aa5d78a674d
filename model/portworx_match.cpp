#include "model/portworx_match.hpp"

#include <algorithm>
#include <optional>
#include <limits>
#include <stdexcept>

namespace schedopt {

px_volume_match::px_volume_match(const shared_list<persistent_volume>& pvs)
    : pvs_(pvs), wanted_(pvs.size()) {
  handle_ends_.reserve(pvs.size());
  handle_text_.reserve(pvs.size() * 20); // a Portworx id has up to 19 digits
  for (const auto& pv : pvs) {
    pv->volume_handle.append_to(handle_text_);
    if (handle_text_.size() > UINT32_MAX)
      throw std::length_error("px_volume_match: volume handles past 4 GiB");
    handle_ends_.push_back(static_cast<uint32_t>(handle_text_.size()));
  }
  by_handle_ = hashed_names(pvs.size(), [this](std::size_t i) { return handle_at(i); });
  ids_.reserve(pvs.size() * 3); // replicas per volume: Portworx has at most 3
}

std::optional<std::string_view> px_volume_match::handle_at(std::size_t i) const {
  std::size_t begin = i == 0 ? 0 : handle_ends_[i - 1];
  return std::string_view(handle_text_).substr(begin, handle_ends_[i] - begin);
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
  auto handle_at = [this](std::size_t i) { return this->handle_at(i); };
  by_handle_.for_each(volume.id, handle_at, [&](std::size_t i) {
    auto& w = wanted_[i];
    if (w.how != matched::by_id) // the first volume of that id, as a lookup by id would find
      take(w, matched::by_id, volume.replica_node_ids);
    return true;
  });
  if (volume.name.empty())
    return;
  by_handle_.for_each(volume.name, handle_at, [&](std::size_t i) {
    auto& w = wanted_[i];
    if (w.how == matched::none)
      take(w, matched::by_name, volume.replica_node_ids);
    return true;
  });
}

void px_volume_match::end_of_offers() {
  by_handle_ = hashed_names();
  handle_ends_ = {};
  handle_text_ = {};
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
