// Positions of names, found through a hash of the name: an open-addressing table of
// 8-byte slots (a 32-bit piece of the hash and the position), at most 3/4 full. Names
// like a PV's "pvc-<uid>" or a Portworx volume id come in no order a lookup could follow:
// a binary search over them missed the cache on most of its probes (each probe reads a
// string's heap block), and sorting them for it cost n log n such comparisons. Here
// building is one pass and a lookup reads one or two slots, then only
// the candidate's name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace schedopt {

class hashed_names {
public:
  hashed_names() = default;

  /// What the lookups will mostly do. One that misses walks to the next empty slot, one
  /// that hits stops at its name: a table looked up only for names it holds may be fuller.
  enum class lookups { may_miss, hit };

  /// Indexes positions 0..n-1 for which `name_at(i)` gives a name (a std::optional or
  /// pointer-like; nothing: not indexed). Positions beyond 32 bits are refused.
  template <class NameAt>
  hashed_names(std::size_t n, NameAt name_at, lookups expected = lookups::may_miss) {
    if (n >= UINT32_MAX)
      throw std::length_error("hashed_names: too many names");
    // At most three quarters full (a miss reads ~8 slots, one or two cache lines), or
    // seven eighths for lookups that hit (~5 slots): a table of every PV, held through a
    // run, is then often half the size.
    std::size_t room = expected == lookups::hit ? n + n / 7 : n + n / 3;
    std::size_t capacity = 8;
    while (capacity < room)
      capacity *= 2;
    slots_.assign(capacity, slot{});
    mask_ = capacity - 1;
    // Inserted in position order, so a name's slots follow its probe sequence in that
    // order too: lookups meet equal names lowest position first.
    for (std::size_t i = 0; i < n; ++i)
      if (auto name = name_at(i)) {
        auto h = hash_of(*name);
        auto at = h & mask_;
        while (slots_[at].position != 0)
          at = (at + 1) & mask_;
        slots_[at] = slot{tag(h), static_cast<uint32_t>(i + 1)};
      }
  }

  /// Calls `f(position)` for every position whose name is `name` (text, or a name that
  /// hashes itself, as `name_at` gives them), lowest first, until
  /// `f` returns false (`name_at` as given to the constructor).
  template <class Name, class NameAt, class F>
  void for_each(const Name& name, NameAt name_at, F f) const {
    if (slots_.empty())
      return;
    static_assert(hashes_itself<Name>::value
                    == hashes_itself<std::decay_t<decltype(*name_at(0))>>::value,
                  "a name is looked up in the form it was indexed in: the hashes differ");
    auto h = hash_of(name);
    for (auto at = h & mask_; slots_[at].position != 0; at = (at + 1) & mask_) {
      const auto& s = slots_[at];
      if (s.tag != tag(h))
        continue;
      std::size_t position = s.position - 1;
      if (auto candidate = name_at(position); candidate && *candidate == name && !f(position))
        return;
    }
  }

  /// The lowest position whose name is `name`.
  template <class Name, class NameAt>
  std::optional<std::size_t> find(const Name& name, NameAt name_at) const {
    std::optional<std::size_t> out;
    for_each(name, name_at, [&](std::size_t position) {
      out = position;
      return false;
    });
    return out;
  }

private:
  struct slot {
    uint32_t tag = 0;
    uint32_t position = 0; // position + 1; 0: empty
  };
  template <class Name, class = void>
  struct hashes_itself : std::false_type {};
  template <class Name>
  struct hashes_itself<Name, std::void_t<decltype(std::declval<const Name&>().hash())>>
      : std::true_type {};
  // Text by its std::hash; a name kept in another form (pv_name) by its own hash().
  static std::size_t hash_of(std::string_view s) { return std::hash<std::string_view>{}(s); }
  template <class Name>
  static auto hash_of(const Name& name) -> decltype(name.hash()) {
    return name.hash();
  }
  // The hash's high bits: the low ones choose the slot, so these tell names apart there.
  static uint32_t tag(std::size_t h) { return static_cast<uint32_t>(h >> (8 * sizeof(h) - 32)); }

  std::vector<slot> slots_;
  std::size_t mask_ = 0;
};

} // namespace schedopt
