#include "model/placement/replica_table.hpp"

#include <functional>
#include <limits>
#include <stdexcept>

namespace schedopt {

std::size_t replica_table::set_hash::operator()(const replica_nodes& nodes) const {
  std::size_t h = nodes.size();
  for (const auto& n : nodes) // boost::hash_combine's mixing
    h ^= std::hash<const void*>()(&n.str()) + 0x9e3779b9 + (h << 6) + (h >> 2);
  return h;
}

void replica_table::push_back(const replica_nodes& nodes) {
  if (sets_.size() == std::numeric_limits<uint32_t>::max())
    throw std::length_error("replica_table: more distinct replica sets than positions fit");
  auto [at, fresh] = index_.try_emplace(nodes, static_cast<uint32_t>(sets_.size()));
  if (fresh)
    sets_.push_back(nodes);
  set_of_.push_back(at->second);
}

void replica_table::seal() {
  index_ = {};
  sets_.shrink_to_fit();
}

} // namespace schedopt
