// Clamp of maxParallelMigrations and the FIFO admission queue behind it.
#include "model/parallelism.hpp"

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

bool admission_queue::push(const std::string& key) {
  if (queued_.count(key) > 0 || in_flight_.count(key) > 0)
    return false;
  waiting_.push_back(key);
  queued_.insert(key);
  return true;
}

void admission_queue::mark_in_flight(const std::string& key) {
  if (queued_.erase(key) > 0)
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), key));
  in_flight_.insert(key);
}

std::optional<std::string> admission_queue::next_admittable() {
  if (waiting_.empty() || in_flight_.size() >= capacity_)
    return std::nullopt;
  std::string key = std::move(waiting_.front());
  waiting_.pop_front();
  queued_.erase(key);
  in_flight_.insert(key);
  return key;
}

void admission_queue::finish(const std::string& key) {
  in_flight_.erase(key);
}

void admission_queue::clear_waiting() {
  waiting_.clear();
  queued_.clear();
}

} // namespace schedopt
