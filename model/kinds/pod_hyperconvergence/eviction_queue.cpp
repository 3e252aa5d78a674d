#include "model/kinds/pod_hyperconvergence/eviction_queue.hpp"

#include <algorithm>

namespace schedopt::pod_hyperconvergence {

eviction_queue::eviction_queue(std::size_t capacity)
    : capacity_(std::max<std::size_t>(capacity, 1)) {}

bool eviction_queue::push(const std::string& key) {
  if (queued_.count(key) || in_flight_.count(key))
    return false;
  waiting_.push_back({key, timestamp::min()});
  queued_.insert(key);
  return true;
}

void eviction_queue::mark_in_flight(const std::string& key) {
  if (queued_.erase(key))
    waiting_.erase(std::find_if(waiting_.begin(), waiting_.end(),
                                [&](const entry& e) { return e.key == key; }));
  in_flight_.insert(key);
}

std::optional<std::string> eviction_queue::next_admittable(timestamp now) {
  if (in_flight_.size() >= capacity_)
    return std::nullopt;
  auto i = std::find_if(waiting_.begin(), waiting_.end(),
                        [&](const entry& e) { return e.due <= now; });
  if (i == waiting_.end())
    return std::nullopt;
  std::string key = std::move(i->key);
  waiting_.erase(i);
  queued_.erase(key);
  in_flight_.insert(key);
  return key;
}

void eviction_queue::defer(const std::string& key, timestamp not_before) {
  in_flight_.erase(key);
  if (queued_.count(key))
    return;
  waiting_.push_back({key, not_before});
  queued_.insert(key);
}

void eviction_queue::finish(const std::string& key) { in_flight_.erase(key); }

std::vector<std::string> eviction_queue::take_waiting() {
  std::vector<std::string> out;
  for (auto& e : waiting_)
    out.push_back(std::move(e.key));
  waiting_.clear();
  queued_.clear();
  return out;
}

std::optional<timestamp> eviction_queue::next_due() const {
  std::optional<timestamp> out;
  for (const auto& e : waiting_)
    if (!out || e.due < *out)
      out = e.due;
  return out;
}

void eviction_queue::set_capacity(std::size_t capacity) {
  capacity_ = std::max<std::size_t>(capacity, 1);
}

} // namespace schedopt::pod_hyperconvergence
