// docs/design.md §1.6/§3.8 status writer policy: one request's status, updated in memory by the run
// and turned into at most one status patch per flush interval (stage changes at once,
// a heartbeat while in progress). Time is an argument; the actor owns the timer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "model/duration.hpp"
#include "model/error.hpp"
#include "model/objects.hpp"
#include "model/timestamp.hpp"

namespace schedopt {

/// What the status writer does with a failed status patch (docs/design.md §3.8).
enum class patch_failure {
  transient, // 5xx, 429, 401, 408, timeout, transport: re-sent with backoff, never dropped
  too_large, // 413, or a message saying the request/object is too large: shrink, re-send
  gone,      // 404, or the 422 of a JSON patch that did not apply: its uid test failed,
             // so the name now holds another object
  rejected,  // 400, 403, a schema 422 and other 4xx: the same patch can never succeed
};

/// The whole message kube-apiserver answers (422) for a JSON patch that does not apply:
/// it carries no cause, so which operation failed is not said.
inline constexpr std::string_view json_patch_not_applied =
  "the server rejected our request due to an error in our request";

patch_failure classify_patch_failure(ec code, int http_status, std::string_view message);

struct coalescer_stats {
  int64_t updates = 0;   // mutations applied
  int64_t patches = 0;   // patches taken (written)
  int64_t coalesced = 0; // updates folded into an already pending patch
};

class status_coalescer {
public:
  status_coalescer(duration flush_interval, duration heartbeat_interval,
                   std::size_t max_details);

  /// Resume: adopts a status read from the API as already written. Its details and
  /// counters are kept; results for items its blocks already list are not counted again.
  void restore(const scheduling_optimization_status& s, timestamp now);

  /// Stage/status change (Pending, Evaluating+InProgress, Migrating+InProgress); urgent.
  /// Entering Evaluating sets startTimestamp = now unless already set.
  void set_stage(request_stage stage, request_status status, timestamp now);
  void set_observed_generation(int64_t generation);
  void set_reason(const std::string& reason);

  /// Counts one item's result in the block of `kind` (created on first use) and appends
  /// its detail while under the block's cap. Returns false (and changes nothing) when
  /// this kind already recorded the item.
  bool add_result(const std::string& kind, const kind_detail& d);
  bool has_detail(const std::string& kind, const std::string& namespace_,
                  const std::string& name) const;
  /// Keeps `n` more detail slots in the block of `kind` for engine results still to
  /// come (a run reserves as it hands candidates on): skips are listed only while they
  /// leave that room, so every item the engine ran gets its entry. The block exists from
  /// then on, zeros included (a run reserves 0 as it starts a kind): the CRD says a block
  /// mirrors its spec field, so an enabled kind with nothing to do still reports. Opening
  /// it writes nothing by itself: the block goes out with the next patch.
  void reserve_details(const std::string& kind, std::size_t n);

  /// Final stage with outcome and reason, finishTimestamp = now; urgent. Afterwards
  /// every mutation is ignored.
  void finish(request_status status, const std::string& reason, timestamp now);

  /// The last patch was too large for the API server: keeps the first half of every
  /// block's details (counters untouched; later results add no details beyond that), notes the
  /// cut in the reason and makes the status urgent again, even after Final was taken.
  /// Returns false, changing nothing, when no detail is left to drop.
  bool shrink_details();

  /// Must a patch be written now?
  bool due(timestamp now) const;
  /// When due() will next become true if nothing else changes (nullopt: never).
  std::optional<timestamp> next_due() const;
  /// The JSON patch (RFC 6902) `[{"op":"test","path":"/metadata/uid","value":uid},
  /// {"op":"add","path":"/status","value":{...}}]` with lastUpdateTimestamp = now (no
  /// test without a uid); marks written. The test is the only guard kube-apiserver
  /// enforces on a PATCH (a merge patch's metadata.uid is overwritten, not compared), so
  /// a patch still in flight when the request was deleted and re-created fails with 422
  /// instead of landing on the new object. The whole status is added at once: it applies
  /// whether or not the object has a status yet, so the test is the only operation that
  /// can fail.
  std::string take_patch(timestamp now, std::string_view uid = {});

  const scheduling_optimization_status& current() const { return status_; }
  bool dirty() const { return dirty_; }
  bool final_written() const { return final_written_; }
  const coalescer_stats& stats() const { return stats_; }

private:
  /// A block's detail cap (maxNonHyperconvergedPerRun, lowered by shrink_details) and
  /// the slots kept for engine results.
  struct block_caps {
    std::size_t max_details = 0;
    std::size_t reserved = 0;
  };
  block_caps& caps_of(const std::string& kind);

  void touch();
  bool in_progress() const;
  std::string noted(const std::string& reason) const;

  duration flush_interval_;
  duration heartbeat_interval_;
  std::size_t max_details_; // each block's cap until shrink_details lowers it
  std::map<std::string, block_caps> caps_; // by kind
  scheduling_optimization_status status_;
  std::set<std::string> recorded_; // "<kind>/<ns>/<name>" counted by this run or restored
  bool dirty_ = false;
  bool urgent_ = false;
  bool final_ = false;
  bool final_written_ = false;
  bool truncated_ = false; // shrink_details() cut the details at least once
  std::optional<timestamp> last_write_;
  coalescer_stats stats_;
};

} // namespace schedopt
