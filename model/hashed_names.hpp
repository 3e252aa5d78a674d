// Positions of names, found through a hash of the name: a sorted vector of (hash,
// position), 16 bytes a name. Names like a PV's "pvc-<uid>" come in no order a lookup
// could follow, and a binary search over 200,000 of them missed the cache on most of its
// ~18 probes (each probe reads a string's heap block); here the probes stay in one
// contiguous array and only the candidate's name is read.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace schedopt {

class hashed_names {
public:
  hashed_names() = default;

  /// Indexes positions 0..n-1 for which `name_at(i)` gives a name (a std::optional or
  /// pointer-like; nothing: not indexed).
  template <class NameAt>
  hashed_names(std::size_t n, NameAt name_at) {
    entries_.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      if (auto name = name_at(i))
        entries_.emplace_back(hash(*name), i);
    std::sort(entries_.begin(), entries_.end());
  }

  /// The position whose name is `name` (`name_at` as given to the constructor).
  template <class NameAt>
  std::optional<std::size_t> find(std::string_view name, NameAt name_at) const {
    auto h = hash(name);
    auto i = std::lower_bound(entries_.begin(), entries_.end(), std::make_pair(h, std::size_t{0}));
    for (; i != entries_.end() && i->first == h; ++i)
      if (auto candidate = name_at(i->second); candidate && *candidate == name)
        return i->second;
    return std::nullopt;
  }

private:
  static std::size_t hash(std::string_view s) { return std::hash<std::string_view>{}(s); }

  std::vector<std::pair<std::size_t, std::size_t>> entries_;
};

} // namespace schedopt
