// The informer's cache: objects by "<namespace>/<name>", and the diff a relist produces
// (added / updated / deleted), so a relist after 410 tells subscribers only what changed.
#pragma once

#include <charconv>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
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
/// object while any snapshot keeps the one it had. The objects are their own keys (a set
/// ordered as their "<ns>/<name>" strings would be, model/sorted_objects.hpp): a map
/// beside them held each key a second time, 80 bytes and more per object.
template <class T>
class informer_store {
public:
  using pointer = std::shared_ptr<const T>;

  struct by_store_key {
    using is_transparent = void;
    static key_ref ref(const pointer& p) { return {p->metadata.namespace_, p->metadata.name}; }
    static key_ref ref(const key_ref& k) { return k; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      auto x = ref(a), y = ref(b);
      return compare_joined(x.namespace_, x.name, y.namespace_, y.name) < 0;
    }
  };
  using set_type = std::set<pointer, by_store_key>;

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
    auto wanted = [&](const T& obj) { return !interested || interested(store_key(obj)); };
    store_diff<T> diff;
    set_type fresh;
    for (auto& item : items)
      assign(fresh, std::move(item)); // a later duplicate wins, as in a map
    items = {};
    for (auto& obj : objects_) {
      if (!wanted(*obj))
        continue;
      auto i = fresh.find(by_store_key::ref(obj));
      if (i == fresh.end())
        diff.deleted.push_back(*obj);
      else if ((*i)->metadata.resource_version != obj->metadata.resource_version
               || uid_of((*i)->metadata) != uid_of(obj->metadata))
        diff.updated.emplace_back(*obj, **i);
    }
    for (auto& obj : fresh)
      if (objects_.count(by_store_key::ref(obj)) == 0 && wanted(*obj))
        diff.added.push_back(*obj);
    objects_ = std::move(fresh);
    return diff;
  }

  /// Inserts or replaces; returns the previous state if there was one.
  pointer upsert(T obj) {
    return assign(objects_, std::make_shared<const T>(std::move(obj)));
  }

  /// Removes; returns the last stored state (nullptr when absent).
  pointer erase(const std::string& key) {
    auto i = objects_.find(split_store_key(key));
    if (i == objects_.end())
      return nullptr;
    auto old = *i;
    objects_.erase(i);
    return old;
  }

  /// The stored object, shared (nullptr when absent).
  pointer find_shared(const std::string& key) const {
    auto i = objects_.find(split_store_key(key));
    return i == objects_.end() ? nullptr : *i;
  }

  const T* find(const std::string& key) const {
    auto i = objects_.find(split_store_key(key));
    return i == objects_.end() ? nullptr : i->get();
  }

  /// Every object, sorted by key, shared with the store.
  shared_list<T> snapshot() const {
    return shared_list<T>(objects_.begin(), objects_.end());
  }

  /// Every object, sorted by key.
  const set_type& objects() const { return objects_; }
  std::size_t size() const { return objects_.size(); }

private:
  /// Stores `fresh` in `set` in place of an object of its key; returns that one.
  static pointer assign(set_type& set, pointer fresh) {
    auto i = set.find(by_store_key::ref(fresh));
    if (i == set.end()) {
      set.insert(std::move(fresh));
      return nullptr;
    }
    auto node = set.extract(i); // the key is unchanged: the node goes back where it was
    auto old = std::exchange(node.value(), std::move(fresh));
    set.insert(std::move(node));
    return old;
  }

  set_type objects_;
};

} // namespace schedopt::k8s
