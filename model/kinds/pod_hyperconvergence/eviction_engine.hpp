// docs/design.md §9 engine: one run's evictions as a state machine, pure (time passed in),
// which the kind actor drives by doing the I/O it asks for and feeding the answers back.
//
// A candidate, admitted by the eviction queue (maxParallelEvictions slots), first has its
// eviction recorded on its owner (the cool-off time and the ledger entry naming the pod,
// eviction_ledger.hpp), then its eviction is sent; the owner's record is written before
// the eviction as the VM kind writes its record before creating a VMIM, so a restart
// finds every pod this request may have evicted. Writes to one owner go one at a time,
// each carrying the owner's whole ledger, so none undoes another.
//
//   evicted / gone       the slot stays taken until the replacement settles (observe):
//                        Successful on a best node, Failed RescheduledOffReplica or
//                        ReplacementNotReady (replacement.hpp). podReadyTimeout runs
//                        from when the API accepted the eviction.
//   blocked / transient  the slot is given back and the candidate waits its backoff
//                        (eviction_retry_delay) at the back of the queue, for as long as
//                        the eviction window is open; when it closes it ends as
//                        unevicted_outcome says (Skipped DisruptionBudget after a 429).
//   failed               Failed with the API's words.
// A candidate that ends without being evicted has its ledger entry taken out again; the
// last one out restores the owner's record as it was before the run.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/kinds/pod_hyperconvergence/eviction.hpp"
#include "model/kinds/pod_hyperconvergence/eviction_ledger.hpp"
#include "model/kinds/pod_hyperconvergence/eviction_queue.hpp"
#include "model/kinds/pod_hyperconvergence/pod_evaluation.hpp"
#include "model/kinds/pod_hyperconvergence/replacement.hpp"

namespace schedopt::pod_hyperconvergence {

struct engine_settings {
  std::size_t max_parallel = 5; // maxParallelEvictions, clamped
  duration ready_timeout = default_pod_ready_timeout;
  duration settle_grace = eviction_window::default_settle_grace;
  timestamp run_deadline = timestamp::max(); // maxRunDuration
  std::string request_uid;
  std::string cool_off_key = default_pod_cool_off_annotation;
};

/// A merge patch of an owner's eviction record for the actor to send.
struct owner_write {
  std::string workload; // describe(owner): the engine's key for it
  cool_off_holder holder;
  std::string patch; // JSON
};

/// An eviction for the actor to POST (eviction_body with the uid precondition).
struct eviction_call {
  std::string key; // "<ns>/<name>"
  std::string namespace_;
  std::string name;
  std::string uid;
};

/// An eviction the API accepted (for the Normal Evicted event and the log).
struct accepted_eviction {
  std::string key;
  workload_ref owner;
  std::vector<std::string> best_nodes;
  eviction_verdict verdict = eviction_verdict::evicted; // evicted or gone
};

class eviction_engine {
public:
  eviction_engine(engine_settings settings, timestamp opened);

  /// An eligible candidate. `owner_annotations`: the owner as the run read it (its
  /// record before the run, and the ledger a resumed run continues).
  void add(const eviction_candidate& c, const string_map& owner_annotations);

  /// Resume: an eviction this request made before a restart (its ledger entry), whose
  /// replacement is awaited; it holds a slot. podReadyTimeout runs from `now` at the
  /// earliest: when the API accepted it is not recorded.
  void adopt(const evicted_pod& e, const string_map& owner_annotations, timestamp now);

  /// Resume: a ledger entry of this request whose pod was never evicted and is no
  /// candidate now: taken out of the owner's ledger.
  void drop_entry(const workload_ref& owner, const string_map& owner_annotations,
                  const std::string& pod_name);

  /// Admits what the queue lets go at `now` and returns the owner writes to send
  /// (at most one in flight per owner).
  std::vector<owner_write> take_owner_writes(timestamp now);
  /// The owner write for `workload` ended; `error` empty when it was written. A
  /// candidate whose record could not be written is not evicted: Failed.
  void owner_written(const std::string& workload, const std::string& error, timestamp now);
  /// Evictions whose record is written, to send now.
  std::vector<eviction_call> take_evictions();
  /// The API's answer to an eviction (decide_eviction).
  void eviction_answered(const std::string& key, const eviction_decision& d, timestamp now);
  /// Judges every awaited replacement against the pods as they are now.
  void observe(const shared_list<pod>& pods, timestamp now);
  /// Closes the eviction window when its time has come (and ends what waits in it).
  void advance(timestamp now);
  /// The request went away: nothing new is recorded or sent; what waits is outstanding.
  void stop();
  bool stopped() const { return stopped_; }

  /// Final results since the last call, in the order they came.
  std::vector<pod_detail> take_outcomes();
  /// Evictions the API accepted since the last call.
  std::vector<accepted_eviction> take_accepted();
  /// Candidates that never got to their eviction (the request went away), "<ns>/<name>".
  const std::vector<std::string>& outstanding() const { return outstanding_; }

  /// Nothing waits, nothing is in flight, no owner write is due or pending.
  bool finished() const;
  /// When advance or observe should run next without any answer arriving (a backoff
  /// ending, the window closing, a replacement's deadline); nullopt: only answers matter.
  std::optional<timestamp> next_wakeup() const;
  /// Evictions whose replacement is awaited.
  std::size_t awaiting() const;
  std::size_t in_flight() const { return queue_.in_flight(); }
  bool window_closed() const { return closed_; }

private:
  enum class phase { queued, recording, ready, evicting, awaiting, done };
  struct candidate {
    std::string namespace_;
    std::string name;
    eviction_candidate c;
    evicted_pod record; // set once admitted
    std::string workload;
    phase at = phase::queued;
    bool recorded = false;  // its ledger entry is on the owner
    bool admitted = false;  // ever admitted (its first attempt time is set)
    int attempts = 0;
    std::optional<eviction_decision> last;
    timestamp ready_by{}; // awaiting: podReadyTimeout's deadline
    std::string claimed_uid; // the replacement found so far (ReplicaSet claims)
  };
  struct owner_record {
    workload_ref owner;
    string_map before;                // the record before this request wrote
    std::vector<ledger_entry> entries; // as they should be on the owner
    bool dirty = false;               // entries differ from what was last sent
    bool writing = false;             // a write is in flight
    std::set<std::string> covering;   // candidates the write in flight records
  };

  owner_record& owner_of(const workload_ref& w, const string_map& annotations);
  void set_entry(owner_record& o, const ledger_entry& e);
  void remove_entry(owner_record& o, const std::string& pod_name);
  void finish(candidate& c, pod_detail outcome);
  void end_unevicted(candidate& c);
  void close_window();

  engine_settings settings_;
  eviction_queue queue_;
  eviction_window window_;
  std::map<std::string, candidate> candidates_; // by "<ns>/<name>"
  std::map<std::string, owner_record> owners_;  // by describe(owner)
  std::vector<pod_detail> outcomes_;
  std::vector<accepted_eviction> accepted_;
  std::vector<std::string> outstanding_;
  bool closed_ = false;
  bool stopped_ = false;
};

} // namespace schedopt::pod_hyperconvergence
