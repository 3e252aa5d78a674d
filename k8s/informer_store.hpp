// The informer's cache: objects by "<namespace>/<name>", and the diff a relist produces
// (added / updated / deleted), so a relist after 410 tells subscribers only what changed.
#pragma once

#include <charconv>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/objects.hpp"

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
inline bool older_version(const std::string& incoming, const std::string& stored) {
  auto number = [](const std::string& s, uint64_t& out) {
    auto [end, err] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && err == std::errc{} && end == s.data() + s.size();
  };
  uint64_t a = 0, b = 0;
  return number(incoming, a) && number(stored, b) && a < b;
}

template <class T>
struct store_diff {
  std::vector<T> added;
  std::vector<std::pair<T, T>> updated; // (old, new)
  std::vector<T> deleted;
};

/// Holds each object once, shared: snapshot() hands out pointers (copy-on-write), so an
/// evaluation reads the whole store without copying it, and an update stores a new
/// object while any snapshot keeps the one it had.
template <class T>
class informer_store {
public:
  using pointer = std::shared_ptr<const T>;
  using map_type = std::map<std::string, pointer>;

  /// Replaces the content with a fresh list and returns what changed, for the keys
  /// `interested` accepts (all by default): an informer nobody subscribes to does not copy
  /// a whole list into a diff.
  store_diff<T> replace(std::vector<T> items,
                        const std::function<bool(const std::string&)>& interested = {}) {
    std::vector<pointer> shared;
    shared.reserve(items.size());
    for (auto& item : items)
      shared.push_back(std::make_shared<const T>(std::move(item)));
    items = {};
    return replace(std::move(shared), interested);
  }

  /// The same for objects already shared: an informer makes each one as its page
  /// decodes, so a list never holds its objects twice (a vector of them, then the store's).
  store_diff<T> replace(std::vector<pointer> items,
                        const std::function<bool(const std::string&)>& interested = {}) {
    auto wanted = [&](const std::string& key) { return !interested || interested(key); };
    store_diff<T> diff;
    map_type fresh;
    for (auto& item : items) {
      auto key = store_key(*item);
      fresh.insert_or_assign(std::move(key), std::move(item));
    }
    items = {};
    for (auto& [key, obj] : objects_) {
      if (!wanted(key))
        continue;
      auto i = fresh.find(key);
      if (i == fresh.end())
        diff.deleted.push_back(*obj);
      else if (i->second->metadata.resource_version != obj->metadata.resource_version
               || i->second->metadata.uid != obj->metadata.uid)
        diff.updated.emplace_back(*obj, *i->second);
    }
    for (auto& [key, obj] : fresh)
      if (wanted(key) && objects_.count(key) == 0)
        diff.added.push_back(*obj);
    objects_ = std::move(fresh);
    return diff;
  }

  /// Inserts or replaces; returns the previous state if there was one.
  pointer upsert(T obj) {
    auto key = store_key(obj);
    auto fresh = std::make_shared<const T>(std::move(obj));
    auto i = objects_.find(key);
    if (i == objects_.end()) {
      objects_.emplace(std::move(key), std::move(fresh));
      return nullptr;
    }
    return std::exchange(i->second, std::move(fresh));
  }

  /// Removes; returns the last stored state (nullptr when absent).
  pointer erase(const std::string& key) {
    auto i = objects_.find(key);
    if (i == objects_.end())
      return nullptr;
    auto old = std::move(i->second);
    objects_.erase(i);
    return old;
  }

  /// The stored object, shared (nullptr when absent).
  pointer find_shared(const std::string& key) const {
    auto i = objects_.find(key);
    return i == objects_.end() ? nullptr : i->second;
  }

  const T* find(const std::string& key) const {
    auto i = objects_.find(key);
    return i == objects_.end() ? nullptr : i->second.get();
  }

  /// Every object, sorted by key, shared with the store.
  shared_list<T> snapshot() const {
    shared_list<T> out;
    out.reserve(objects_.size());
    for (auto& [key, obj] : objects_)
      out.push_back(obj);
    return out;
  }

  const map_type& objects() const { return objects_; }
  std::size_t size() const { return objects_.size(); }

private:
  map_type objects_;
};

} // namespace schedopt::k8s
