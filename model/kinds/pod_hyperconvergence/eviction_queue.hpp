// docs/design.md §9 parallelism: maxParallelEvictions bounds the evictions whose
// replacement is not yet Ready. A candidate takes a slot when its eviction is sent and
// keeps it until its replacement settles (Ready, or judged failed); one a budget turns
// away (429) gives its slot back and waits its backoff behind the others, so pods a PDB
// holds never keep pods of other workloads from going.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/timestamp.hpp"

namespace schedopt::pod_hyperconvergence {

class eviction_queue {
public:
  explicit eviction_queue(std::size_t capacity);

  /// Appends a candidate, due at once; a key already waiting or in flight is ignored
  /// (returns false).
  bool push(const std::string& key);
  /// Counts an eviction made before a restart, whose replacement is still awaited.
  void mark_in_flight(const std::string& key);
  /// The first waiting candidate due at `now`, now holding a slot; nullopt when every
  /// slot is taken or none is due.
  std::optional<std::string> next_admittable(timestamp now);
  /// The eviction was turned away for now: frees its slot and queues it again at the
  /// back, due at `not_before`.
  void defer(const std::string& key, timestamp not_before);
  /// Its replacement settled, or it ended another way: frees its slot.
  void finish(const std::string& key);
  /// Removes and returns every waiting candidate, in queue order (the eviction window
  /// closed, or the request went away); in-flight ones stay.
  std::vector<std::string> take_waiting();

  /// The earliest time a waiting candidate becomes due; nullopt when none waits.
  std::optional<timestamp> next_due() const;

  /// maxParallelEvictions (at least 1), followed live: a smaller one admits nothing
  /// until enough finish.
  void set_capacity(std::size_t capacity);

  std::size_t capacity() const { return capacity_; }
  std::size_t in_flight() const { return in_flight_.size(); }
  std::size_t waiting() const { return waiting_.size(); }
  bool idle() const { return waiting_.empty() && in_flight_.empty(); }
  bool is_in_flight(const std::string& key) const { return in_flight_.count(key) > 0; }

private:
  struct entry {
    std::string key;
    timestamp due;
  };

  std::size_t capacity_;
  std::deque<entry> waiting_;
  std::set<std::string> queued_;
  std::set<std::string> in_flight_;
};

} // namespace schedopt::pod_hyperconvergence
