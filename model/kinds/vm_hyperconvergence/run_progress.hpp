// One vmHyperconvergence run as a state machine (docs/design.md §2–§3, §3.9): the kind
// actor reports what happened (an input read, judging started, the Migrating write
// answered, a candidate done, a stop) and asks what it may do next; which of its
// asynchronous steps may follow which is decided, and tested, here.
//
//   gathering --both inputs read--> judging --last batch--> evaluated --> done
//             (or the driver's lead)
//        \______________________ stop / failure ____________________/
//
// Beside the phases runs the migration engine: idle until judging starts in a run that
// migrates, starting while its Migrating write is on the wire (candidates queue), then
// running (candidates are spawned as they are handed on).
#pragma once

#include <cstddef>

namespace schedopt {

/// What a run is for: migrating, or one of the runs that create nothing.
enum class run_mode {
  migrate, // `schedopt run`
  dry_run, // `schedopt run --dry-run`: evaluates, logs its plan, reserves its details
  plan,    // `schedopt plan`: prints the evaluation
  explain, // `schedopt explain`: prints why each VM is or is not moved
};

class run_progress {
public:
  enum class phase {
    gathering, // snapshots read; the VirtualMachines' records and the driver asked
    judging,   // VMIs judged batch by batch; candidates handed on as they are found
    evaluated, // every VMI judged, or the run stopped: waiting for the candidates
    done,      // replied: nothing more happens
  };
  enum class engine {
    idle,     // no Migrating write asked: gathering, or a run that creates nothing
    starting, // the Migrating write is on the wire; candidates handed on queue
    running,  // candidates are spawned as they are handed on
    refused,  // the write failed, or the run stopped first: no candidate is spawned
  };

  explicit run_progress(run_mode mode) : mode_(mode) {}

  run_mode mode() const { return mode_; }
  /// Only a migrating run writes Migrating and hands candidates to an engine.
  bool creates_vmims() const { return mode_ == run_mode::migrate; }
  phase current() const { return phase_; }
  engine engine_state() const { return engine_; }
  /// A stop (the request was deleted, or maxRunDuration passed): no VMIM from now on.
  bool stopped() const { return stopped_; }
  std::size_t running() const { return running_; }

  // -- gathering: the VirtualMachines' records and the driver's answer come in any order

  /// The VirtualMachines are read. Returns true the first time: the evaluation's
  /// driver-independent part may be prepared now.
  bool vms_read();
  /// The driver answered.
  void replicas_read();
  /// The driver answered the lead query (the volumes of the first VMIs, docs/design.md
  /// §2.3): judging may begin with those VMIs.
  void lead_read();
  /// The driver's whole answer is in: every VMI may be judged, not only the lead's.
  bool replicas_complete() const { return replicas_read_; }
  /// The VirtualMachines and the driver's answer (whole, or its lead) are read and the
  /// run is still gathering: moves to judging and returns true (the caller starts
  /// judging, and asks for the engine when creates_vmims()).
  bool begin_judging();

  // -- the engine

  /// Judging began in a migrating run: the Migrating write is asked now (true), unless
  /// the engine was already asked or the run creates nothing.
  bool request_engine();
  /// The Migrating write answered. Returns whether candidates may now be spawned: not
  /// when it was not written or the run stopped meanwhile.
  bool engine_answered(bool written);
  /// Candidates handed on may be spawned at once (else they queue).
  bool spawns_at_once() const { return engine_ == engine::running; }

  // -- candidates

  void candidates_spawned(std::size_t n) { running_ += n; }
  void candidate_done();

  // -- evaluation and its end

  /// The last batch is judged.
  void evaluation_finished();
  /// The run is stopped. Judging stops at the next batch; running candidates finish.
  void stop();
  /// Nothing is left to wait for: evaluated (or stopped), no Migrating write pending, no
  /// candidate running, and not yet replied.
  bool may_reply() const;
  /// Moves to done. Returns false when the run had replied already (two input steps can
  /// fail, and only the first failure answers).
  bool reply();
  /// maxRunDuration still matters: not replied, not stopped, and something is left to
  /// start (judging, candidates queued behind the engine, or candidates running).
  bool deadline_matters(bool queued_empty) const;

private:
  run_mode mode_;
  phase phase_ = phase::gathering;
  engine engine_ = engine::idle;
  bool vms_read_ = false;      // the VirtualMachines' records are in
  bool replicas_read_ = false; // the driver answered
  bool lead_read_ = false;     // the driver answered the lead query
  bool stopped_ = false;
  std::size_t running_ = 0; // candidates spawned and not done
};

const char* to_string(run_progress::phase p);

} // namespace schedopt
