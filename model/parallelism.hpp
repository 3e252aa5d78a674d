// SPEC §3 parallelism: the effective in-flight buffer size and the FIFO that admits
// candidates into it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>

namespace schedopt {

struct parallelism {
  int64_t effective = 1;
  bool clamped = false;
  std::string message; // when clamped: "maxParallelMigrations 500 clamped to 50"
};

/// `requested` (spec) else `cluster_default`, clamped to [1, limit] (limit < 1 acts as 1).
parallelism clamp_parallelism(std::optional<int64_t> requested, int64_t cluster_default,
                              int64_t limit);

/// FIFO of candidate keys plus the set in flight; admits while in_flight < capacity.
class admission_queue {
public:
  explicit admission_queue(std::size_t capacity);

  /// Appends a candidate; a key already queued or in flight is ignored (returns false).
  bool push(const std::string& key);
  /// Counts an adopted migration (resume) as in flight without queueing it.
  void mark_in_flight(const std::string& key);
  /// Pops the next candidate and marks it in flight, or nullopt when full or empty.
  std::optional<std::string> next_admittable();
  /// A migration reached a final outcome: frees its slot.
  void finish(const std::string& key);
  /// Drops everything still waiting (request deleted); in-flight ones stay.
  void clear_waiting();

  std::size_t capacity() const { return capacity_; }
  std::size_t in_flight() const { return in_flight_.size(); }
  std::size_t waiting() const { return waiting_.size(); }
  bool idle() const { return waiting_.empty() && in_flight_.empty(); }

private:
  std::size_t capacity_;
  std::deque<std::string> waiting_;
  std::set<std::string> queued_;
  std::set<std::string> in_flight_;
};

} // namespace schedopt
