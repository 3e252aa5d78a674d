// A map that keeps only its most recently used entries: state a long-lived process keeps
// per object it ever saw (an Event's aggregation record, a spam-filter bucket) must not
// grow with every request over a year.
#pragma once

#include <cstddef>
#include <list>
#include <unordered_map>
#include <utility>

namespace schedopt {

template <class Key, class Value>
class lru_map {
public:
  explicit lru_map(std::size_t capacity) : capacity_(capacity ? capacity : 1) {}

  /// The entry, marked most recently used; nullptr when absent.
  Value* find(const Key& key) {
    auto i = index_.find(key);
    if (i == index_.end())
      return nullptr;
    order_.splice(order_.begin(), order_, i->second);
    return &i->second->second;
  }

  /// Inserts or replaces, marks it most recently used, and drops the least recently
  /// used entry when over capacity.
  Value& put(const Key& key, Value value) {
    if (auto* found = find(key)) {
      *found = std::move(value);
      return *found;
    }
    order_.emplace_front(key, std::move(value));
    index_.emplace(key, order_.begin());
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return order_.front().second;
  }

  void erase(const Key& key) {
    auto i = index_.find(key);
    if (i == index_.end())
      return;
    order_.erase(i->second);
    index_.erase(i);
  }

  /// Drops every entry whose key satisfies pred (linear: for rare clean-ups).
  template <class Pred>
  void erase_if(Pred pred) {
    for (auto i = order_.begin(); i != order_.end();) {
      if (pred(i->first)) {
        index_.erase(i->first);
        i = order_.erase(i);
      } else {
        ++i;
      }
    }
  }

  std::size_t size() const { return order_.size(); }

private:
  std::size_t capacity_;
  std::list<std::pair<Key, Value>> order_; // most recently used first
  std::unordered_map<Key, typename std::list<std::pair<Key, Value>>::iterator> index_;
};

} // namespace schedopt
