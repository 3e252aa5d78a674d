// The informer's cache: objects by "<namespace>/<name>", and the diff a relist produces
// (added / updated / deleted), so a relist after 410 tells subscribers only what changed.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
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

template <class T>
struct store_diff {
  std::vector<T> added;
  std::vector<std::pair<T, T>> updated; // (old, new)
  std::vector<T> deleted;
};

template <class T>
class informer_store {
public:
  using map_type = std::map<std::string, T>;

  /// Replaces the content with a fresh list and returns what changed, for the keys
  /// `interested` accepts (all by default): an informer nobody subscribes to does not copy
  /// a whole list into a diff.
  store_diff<T> replace(std::vector<T> items,
                        const std::function<bool(const std::string&)>& interested = {}) {
    auto wanted = [&](const std::string& key) { return !interested || interested(key); };
    store_diff<T> diff;
    map_type fresh;
    for (auto& item : items) {
      auto key = store_key(item);
      fresh.insert_or_assign(std::move(key), std::move(item));
    }
    for (auto& [key, obj] : objects_) {
      if (!wanted(key))
        continue;
      auto i = fresh.find(key);
      if (i == fresh.end())
        diff.deleted.push_back(obj);
      else if (i->second.metadata.resource_version != obj.metadata.resource_version
               || i->second.metadata.uid != obj.metadata.uid)
        diff.updated.emplace_back(obj, i->second);
    }
    for (auto& [key, obj] : fresh)
      if (wanted(key) && objects_.count(key) == 0)
        diff.added.push_back(obj);
    objects_ = std::move(fresh);
    return diff;
  }

  /// Inserts or replaces; returns the previous state if there was one.
  std::optional<T> upsert(T obj) {
    auto key = store_key(obj);
    auto i = objects_.find(key);
    if (i == objects_.end()) {
      objects_.emplace(std::move(key), std::move(obj));
      return std::nullopt;
    }
    auto old = std::move(i->second);
    i->second = std::move(obj);
    return old;
  }

  /// Removes; returns the last stored state (or the given one when absent).
  std::optional<T> erase(const std::string& key) {
    auto i = objects_.find(key);
    if (i == objects_.end())
      return std::nullopt;
    auto old = std::move(i->second);
    objects_.erase(i);
    return old;
  }

  const T* find(const std::string& key) const {
    auto i = objects_.find(key);
    return i == objects_.end() ? nullptr : &i->second;
  }

  std::vector<T> snapshot() const {
    std::vector<T> out;
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
