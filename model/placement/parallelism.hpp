// docs/design.md §3.4 parallelism: the effective in-flight buffer size and the FIFO that admits
// candidates into it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
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

/// FIFO of candidate keys plus the set in flight; admits while in_flight < capacity, at
/// most `per_source_limit` in flight from one source node (KubeVirt's
/// parallelOutboundMigrationsPerNode), skipping over candidates whose source node is
/// full so those of other nodes go ahead, and nothing while held (KubeVirt's own
/// migrations wait for a slot).
class admission_queue {
public:
  explicit admission_queue(std::size_t capacity);

  /// Appends a candidate leaving `source` (its node; "" unknown, never limited); a key
  /// already queued or in flight is ignored (returns false).
  bool push(const std::string& key, const std::string& source = {});
  /// Counts an adopted migration (resume) as in flight without queueing it.
  void mark_in_flight(const std::string& key, const std::string& source = {});
  /// Pops the next admittable candidate and marks it in flight, or nullopt when full,
  /// held, empty or every waiting one's source node is at its limit.
  std::optional<std::string> next_admittable();
  /// A migration reached a final outcome: frees its slot.
  void finish(const std::string& key);
  /// Drops everything still waiting (request deleted); in-flight ones stay.
  void clear_waiting();

  /// Followed live: a smaller capacity or limit admits nothing until enough finish.
  void set_capacity(std::size_t capacity);
  /// 0: no per-source limit.
  void set_per_source_limit(std::size_t limit);
  void set_held(bool held) { held_ = held; }

  std::size_t capacity() const { return capacity_; }
  std::size_t per_source_limit() const { return per_source_limit_; }
  bool held() const { return held_; }
  std::size_t in_flight() const { return in_flight_.size(); }
  std::size_t in_flight_from(const std::string& source) const;
  std::size_t waiting() const { return waiting_.size(); }
  bool idle() const { return waiting_.empty() && in_flight_.empty(); }

private:
  struct entry {
    std::string key;
    std::string source;
  };
  bool source_full(const std::string& source) const;

  std::size_t capacity_;
  std::size_t per_source_limit_ = 0;
  bool held_ = false;
  std::deque<entry> waiting_;
  std::set<std::string> queued_;
  std::map<std::string, std::string> in_flight_; // key -> source
  std::map<std::string, std::size_t> by_source_; // in flight per source node
};

} // namespace schedopt
