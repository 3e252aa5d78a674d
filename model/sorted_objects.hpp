// Objects of a snapshot found by namespace and name without building an index. An
// informer's snapshot comes sorted by its store key ("<namespace>/<name>"), so a binary
// search finds an object; a map beside it held every key a second time, plus a tree
// node per object.
#pragma once

#include <algorithm>
#include <optional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/hashed_names.hpp"
#include "model/objects.hpp"

namespace schedopt {

namespace detail {

// Character by character, for the namespaces the fast path cannot tell apart.
inline int compare_joined_bytes(std::string_view a_ns, std::string_view a_name,
                                std::string_view b_ns, std::string_view b_name) {
  auto at = [](std::string_view ns, std::string_view name, std::size_t i) -> unsigned char {
    return i < ns.size() ? ns[i] : i == ns.size() ? '/' : name[i - ns.size() - 1];
  };
  std::size_t a_len = a_ns.size() + 1 + a_name.size();
  std::size_t b_len = b_ns.size() + 1 + b_name.size();
  for (std::size_t i = 0, n = std::min(a_len, b_len); i < n; ++i) {
    auto x = at(a_ns, a_name, i), y = at(b_ns, b_name, i);
    if (x != y)
      return x < y ? -1 : 1;
  }
  return a_len < b_len ? -1 : a_len > b_len ? 1 : 0;
}

} // namespace detail

/// Compares "<a_ns>/<a_name>" with "<b_ns>/<b_name>" as strings, without joining them.
/// Where one namespace ends inside the other, its '/' meets a character of the longer
/// one and decides (unless that is a '/' too, which no real namespace holds); with equal
/// namespaces the names decide. Character by character this was the hottest loop of an
/// evaluation at scale (binary searches compare many keys per lookup).
inline int compare_joined(std::string_view a_ns, std::string_view a_name, std::string_view b_ns,
                          std::string_view b_name) {
  auto common = std::min(a_ns.size(), b_ns.size());
  if (int c = a_ns.substr(0, common).compare(b_ns.substr(0, common)); c != 0)
    return c < 0 ? -1 : 1;
  if (a_ns.size() != b_ns.size()) {
    auto a_next = static_cast<unsigned char>(a_ns.size() > common ? a_ns[common] : '/');
    auto b_next = static_cast<unsigned char>(b_ns.size() > common ? b_ns[common] : '/');
    if (a_next != b_next)
      return a_next < b_next ? -1 : 1;
    return detail::compare_joined_bytes(a_ns, a_name, b_ns, b_name);
  }
  int c = a_name.compare(b_name);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

/// An object's store key against "<ns>/<name>", in the order of the joined strings,
/// whatever form its name is kept in: a PV's (a pv_name) is compared without writing
/// out its text.
template <class Meta>
int compare_key(const Meta& m, std::string_view ns, std::string_view name) {
  if constexpr (std::is_same_v<std::decay_t<decltype(m.name)>, pv_name>) {
    if (m.namespace_.view() == ns)
      return compare(m.name, name);
    return compare_joined(m.namespace_, m.name.str(), ns, name);
  } else {
    return compare_joined(m.namespace_, m.name, ns, name);
  }
}

/// Two objects' store keys, as above.
template <class Meta>
int compare_keys(const Meta& a, const Meta& b) {
  if constexpr (std::is_same_v<std::decay_t<decltype(a.name)>, pv_name>) {
    if (a.namespace_ == b.namespace_)
      return compare(a.name, b.name);
    return compare_joined(a.namespace_, a.name.str(), b.namespace_, b.name.str());
  } else {
    return compare_joined(a.namespace_, a.name, b.namespace_, b.name);
  }
}

template <class T>
class sorted_objects {
public:
  sorted_objects() = default;
  /// Takes a snapshot; one that is not in store-key order (a test's) is sorted first.
  explicit sorted_objects(shared_list<T> objects) : items_(std::move(objects)) {
    auto less = [](const auto& a, const auto& b) {
      return compare_keys(a->metadata, b->metadata) < 0;
    };
    if (!std::is_sorted(items_.begin(), items_.end(), less))
      std::sort(items_.edit().begin(), items_.edit().end(), less);
  }

  /// The object named so (namespace empty for cluster-scoped ones), or nullptr.
  const T* find(std::string_view ns, std::string_view name) const {
    auto i = locate(ns, name);
    return i != items_.end() ? i->get() : nullptr;
  }

  /// The same, shared: for a caller that holds on to the object.
  std::shared_ptr<const T> find_shared(std::string_view ns, std::string_view name) const {
    auto i = locate(ns, name);
    return i != items_.end() ? *i : nullptr;
  }

  /// The same, searched outward from `hint` (where the last lookup landed; 0 to start),
  /// which it then holds. Lookups made in near key order (a VMI's claims, VMI after VMI)
  /// touch a few neighbouring objects instead of a binary search's probes spread over
  /// the heap: those cache misses dominated step 1 at scale.
  const T* find_near(std::size_t& hint, std::string_view ns, std::string_view name) const {
    auto before = [&](std::size_t i) { return is_before(items_[i], ns, name); };
    std::size_t n = items_.size();
    if (n == 0)
      return nullptr;
    // The answer (the first object not before the key) is narrowed to [lo, hi].
    std::size_t lo = 0, hi = 0, step = 1, h = std::min(hint, n - 1);
    if (before(h)) { // ahead: probe h+1, h+2, h+4, ...
      lo = hi = h + 1;
      while (hi < n && before(hi)) {
        lo = hi + 1;
        hi = lo + step;
        step *= 2;
      }
      hi = std::min(hi, n);
    } else { // behind or here: probe h-1, h-2, h-4, ...
      hi = h;
      while (hi >= step && !before(hi - step)) {
        hi -= step;
        step *= 2;
      }
      lo = hi >= step ? hi - step + 1 : 0;
    }
    auto i = first_not_before(items_.begin() + lo, items_.begin() + hi, ns, name);
    hint = static_cast<std::size_t>(i - items_.begin());
    return is_key(i, ns, name) ? i->get() : nullptr;
  }

  std::size_t size() const { return items_.size(); }
  const std::shared_ptr<const T>& at(std::size_t i) const { return items_[i]; }

private:
  using iterator = typename shared_list<T>::const_iterator;

  static bool is_before(const std::shared_ptr<const T>& obj, std::string_view ns,
                        std::string_view name) {
    return compare_key(obj->metadata, ns, name) < 0;
  }
  // A binary search of [from, to) in store-key order.
  static iterator first_not_before(iterator from, iterator to, std::string_view ns,
                                   std::string_view name) {
    return std::partition_point(from, to, [&](const auto& obj) { return is_before(obj, ns, name); });
  }
  bool is_key(iterator i, std::string_view ns, std::string_view name) const {
    return i != items_.end() && compare_key((*i)->metadata, ns, name) == 0;
  }

  // The object's position, or end().
  iterator locate(std::string_view ns, std::string_view name) const {
    auto i = first_not_before(items_.begin(), items_.end(), ns, name);
    return is_key(i, ns, name) ? i : items_.end();
  }

  shared_list<T> items_;
};

/// Cluster-scoped objects (PVs) found by name through its hash (model/hashed_names.hpp):
/// PV names come in no order a lookup could follow.
template <class T>
class name_hash_index {
public:
  /// Looked up for names that are there (a claim's bound PV): a full table.
  explicit name_hash_index(const sorted_objects<T>& objects)
    : objects_(objects),
      names_(objects.size(), [this](std::size_t i) { return name_at(i); },
             hashed_names::lookups::hit) {}

  /// `name` in the form the objects keep theirs (a PV's: a pv_name).
  template <class Name>
  std::shared_ptr<const T> find_shared(const Name& name) const {
    auto at = names_.find(name, [this](std::size_t i) { return name_at(i); });
    return at ? objects_.at(*at) : nullptr;
  }

private:
  // Only cluster-scoped objects are found by their name alone.
  auto name_at(std::size_t i) const {
    const auto& meta = objects_.at(i)->metadata;
    return meta.namespace_.empty() ? &meta.name : nullptr;
  }

  const sorted_objects<T>& objects_;
  hashed_names names_;
};

/// Shared copies of a map's values (tests, small inputs), found as a snapshot's are.
template <class T>
sorted_objects<T> index_of(const std::map<std::string, T>& values) {
  shared_list<T> out;
  for (const auto& [key, v] : values)
    out.push_back(std::make_shared<const T>(v));
  return sorted_objects<T>{std::move(out)};
}

} // namespace schedopt
