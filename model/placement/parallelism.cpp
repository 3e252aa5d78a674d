// Clamp of maxParallelMigrations and the FIFO admission queue behind it.
#include "model/placement/parallelism.hpp"

#include <algorithm>

namespace schedopt {

parallelism clamp_parallelism(std::optional<int64_t> requested, int64_t cluster_default,
                              int64_t limit) {
  int64_t upper = std::max<int64_t>(limit, 1);
  int64_t wanted = requested ? *requested : cluster_default;
  parallelism out;
  out.effective = std::clamp<int64_t>(wanted, 1, upper);
  out.clamped = out.effective != wanted;
  if (out.clamped)
    out.message = "maxParallelMigrations " + std::to_string(wanted) + " clamped to "
                  + std::to_string(out.effective);
  return out;
}

admission_queue::admission_queue(std::size_t capacity)
  : capacity_(std::max<std::size_t>(capacity, 1)) {
}

bool admission_queue::push(const std::string& key, const std::string& source) {
  if (queued_.count(key) > 0 || in_flight_.count(key) > 0)
    return false;
  waiting_.push_back({key, source});
  queued_.insert(key);
  return true;
}

void admission_queue::mark_in_flight(const std::string& key, const std::string& source) {
  if (queued_.erase(key) > 0)
    waiting_.erase(std::find_if(waiting_.begin(), waiting_.end(),
                                [&](const entry& e) { return e.key == key; }));
  if (in_flight_.emplace(key, source).second && !source.empty())
    ++by_source_[source];
}

bool admission_queue::source_full(const std::string& source) const {
  return per_source_limit_ > 0 && !source.empty() && in_flight_from(source) >= per_source_limit_;
}

std::optional<std::string> admission_queue::next_admittable() {
  if (held_ || in_flight_.size() >= capacity_)
    return std::nullopt;
  // The first waiting candidate whose source node has room: one busy node must not hold
  // up the others (the queue is a run's candidates, so the scan is short).
  auto i = std::find_if(waiting_.begin(), waiting_.end(),
                        [&](const entry& e) { return !source_full(e.source); });
  if (i == waiting_.end())
    return std::nullopt;
  entry e = std::move(*i);
  waiting_.erase(i);
  queued_.erase(e.key);
  mark_in_flight(e.key, e.source);
  return e.key;
}

void admission_queue::finish(const std::string& key) {
  auto i = in_flight_.find(key);
  if (i == in_flight_.end())
    return;
  if (!i->second.empty()) {
    auto s = by_source_.find(i->second);
    if (s != by_source_.end() && --s->second == 0)
      by_source_.erase(s);
  }
  in_flight_.erase(i);
}

void admission_queue::clear_waiting() {
  waiting_.clear();
  queued_.clear();
}

void admission_queue::set_capacity(std::size_t capacity) {
  capacity_ = std::max<std::size_t>(capacity, 1);
}

void admission_queue::set_per_source_limit(std::size_t limit) {
  per_source_limit_ = limit;
}

std::size_t admission_queue::in_flight_from(const std::string& source) const {
  auto i = by_source_.find(source);
  return i == by_source_.end() ? 0 : i->second;
}

} // namespace schedopt
