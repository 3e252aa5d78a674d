// The informer's cache: objects by "<namespace>/<name>", and the diff a relist produces
// (added / updated / deleted), so a relist after 410 tells subscribers only what changed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include "model/objects.hpp"
#include "model/sorted_objects.hpp"

namespace schedopt::k8s {

template <class T>
std::string store_key(const T& obj) {
  return obj.metadata.namespace_ + "/" + obj.metadata.name;
}

inline std::string store_key(const std::string& ns, const std::string& name) {
  return ns + "/" + name;
}

/// Whether `incoming` is an older version of an object than `stored`. Kubernetes calls
/// resourceVersions opaque, but etcd's (and the simulator's) are increasing integers,
/// which client-go's mutation cache compares the same way; a version that does not read
/// as one is never called older, so a store fed by a plain watch is never held back.
inline bool older_version(const decimal_text& incoming, const decimal_text& stored) {
  auto a = incoming.number(), b = stored.number();
  return a && b && *a < *b;
}

template <class T>
struct store_diff {
  std::vector<T> added;
  std::vector<std::pair<T, T>> updated; // (old, new)
  std::vector<T> deleted;
};

/// A store key taken apart: "<namespace>/<name>" (namespace empty for cluster-scoped
/// objects). Neither part can hold a '/', so the first one splits them.
struct key_ref {
  std::string_view namespace_;
  std::string_view name;
};

inline key_ref split_store_key(std::string_view key) {
  auto slash = key.find('/');
  if (slash == std::string_view::npos)
    return {{}, key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

/// Holds each object once, shared: snapshot() hands out pointers (copy-on-write), so an
/// evaluation reads the whole store without copying it, and an update stores a new
/// object while any snapshot keeps the one it had. The objects are their own keys, in a
/// vector sorted as their "<ns>/<name>" strings would be (model/sorted_objects.hpp): a
/// std::set of them cost a 48-byte tree node per object, the vector 16 bytes. An add or
/// delete moves the pointers after it (a memmove of 16 bytes per object at most); watch
/// events mostly modify objects in place.
template <class T>
class informer_store {
public:
  using pointer = std::shared_ptr<const T>;
  using list_type = shared_list<T>;

  /// Replaces the content with a fresh list and returns what changed, for the keys
  /// `interested` accepts (all by default): an informer nobody subscribes to does not copy
  /// a whole list into a diff.
  store_diff<T> replace(std::vector<T> items,
                        const std::function<bool(const std::string&)>& interested = {}) {
    list_type shared;
    shared.reserve(items.size());
    for (auto& item : items)
      shared.push_back(std::make_shared<const T>(std::move(item)));
    items = {};
    return replace(std::move(shared), interested);
  }

  /// The same for objects already shared: an informer makes each one as its page
  /// decodes, so a list never holds its objects twice (a vector of them, then the store's).
  store_diff<T> replace(list_type fresh,
                        const std::function<bool(const std::string&)>& interested = {}) {
    sort_unique(fresh);
    auto wanted = [&](const T& obj) { return !interested || interested(store_key(obj)); };
    store_diff<T> diff;
    // Both lists are sorted: one walk pairs them.
    auto old = objects_.begin();
    auto now = fresh.begin();
    while (old != objects_.end() || now != fresh.end()) {
      int order = old == objects_.end() ? 1 : now == fresh.end() ? -1 : compare(**old, **now);
      if (order < 0) {
        if (wanted(**old))
          diff.deleted.push_back(**old);
        ++old;
      } else if (order > 0) {
        if (wanted(**now))
          diff.added.push_back(**now);
        ++now;
      } else {
        if (((*now)->metadata.resource_version != (*old)->metadata.resource_version
             || uid_of((*now)->metadata) != uid_of((*old)->metadata))
            && wanted(**old))
          diff.updated.emplace_back(**old, **now);
        ++old, ++now;
      }
    }
    objects_ = std::move(fresh);
    return diff;
  }

  /// Inserts or replaces; returns the previous state if there was one.
  pointer upsert(T obj) {
    auto fresh = std::make_shared<const T>(std::move(obj));
    auto at = position_of(*fresh);
    auto& objects = objects_.edit();
    if (at < objects.size() && compare(*objects[at], *fresh) == 0)
      return std::exchange(objects[at], std::move(fresh));
    if (objects.size() == objects.capacity()) // grow by an eighth, not by doubling
      objects.reserve(objects.size() + objects.size() / 8 + 4);
    objects.insert(objects.begin() + at, std::move(fresh));
    return nullptr;
  }

  /// Removes; returns the last stored state (nullptr when absent).
  pointer erase(const std::string& key) {
    auto at = index_of(key);
    if (at == objects_.size())
      return nullptr;
    auto& objects = objects_.edit();
    auto old = std::move(objects[at]);
    objects.erase(objects.begin() + at);
    return old;
  }

  /// The stored object, shared (nullptr when absent).
  pointer find_shared(const std::string& key) const {
    auto at = index_of(key);
    return at == objects_.size() ? nullptr : objects_[at];
  }

  const T* find(const std::string& key) const {
    auto at = index_of(key);
    return at == objects_.size() ? nullptr : objects_[at].get();
  }

  /// Every object, sorted by key, shared with the store: the store's next change copies
  /// the list (model/shared_list.hpp), which the snapshot keeps as it was.
  list_type snapshot() const { return objects_; }

  /// Every object, sorted by key.
  const list_type& objects() const { return objects_; }
  std::size_t size() const { return objects_.size(); }

private:
  static int compare(const T& a, const T& b) { return compare_keys(a.metadata, b.metadata); }

  /// Sorts by key; of objects with one key the last in the list stays, as in a map.
  static void sort_unique(list_type& fresh) {
    if (fresh.empty())
      return;
    auto& list = fresh.edit();
    auto less = [](const pointer& a, const pointer& b) { return compare(*a, *b) < 0; };
    if (!std::is_sorted(list.begin(), list.end(), less)) // API lists come in key order
      std::stable_sort(list.begin(), list.end(), less);
    auto out = list.begin();
    for (auto i = list.begin(); i != list.end(); ++i) {
      auto next = std::next(i);
      if (next != list.end() && compare(**i, **next) == 0)
        continue; // a later one of this key follows
      if (out != i)
        *out = std::move(*i);
      ++out;
    }
    list.erase(out, list.end());
  }

  // Where `key` is or would go: the index of the first object not before it.
  std::size_t position(key_ref key) const {
    auto i = std::lower_bound(objects_.begin(), objects_.end(), key, [](const pointer& p, key_ref k) {
      return compare_key(p->metadata, k.namespace_, k.name) < 0;
    });
    return static_cast<std::size_t>(i - objects_.begin());
  }
  std::size_t position_of(const T& obj) const {
    auto i = std::lower_bound(objects_.begin(), objects_.end(), obj,
                              [](const pointer& p, const T& o) { return compare(*p, o) < 0; });
    return static_cast<std::size_t>(i - objects_.begin());
  }
  // The index of the object of `key`, or size() when absent.
  std::size_t index_of(const std::string& key) const {
    auto k = split_store_key(key);
    auto at = position(k);
    return at < objects_.size() && compare_key(objects_[at]->metadata, k.namespace_, k.name) == 0
             ? at
             : objects_.size();
  }

  list_type objects_;
};

} // namespace schedopt::k8s
