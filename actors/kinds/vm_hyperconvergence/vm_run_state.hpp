// One vmHyperconvergence run's actor state, shared by the files that do its steps:
// vm_hyperconvergence_actor (its phases and migration engine), vm_gathering (its inputs)
// and vm_judging (the evaluation, batch by batch). Which step may follow which is
// run_progress's to say (model/kinds/vm_hyperconvergence/run_progress).
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "actors/kinds/kind_run.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_actors.hpp"
#include "model/kinds/vm_hyperconvergence/candidate_plan.hpp"
#include "model/kinds/vm_hyperconvergence/evaluation.hpp"
#include "model/kinds/vm_hyperconvergence/run_inputs.hpp"
#include "model/kinds/vm_hyperconvergence/run_progress.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"
#include "model/resume_ledger.hpp"

namespace schedopt::vm_run {

/// Wall time of each input step, logged with the evaluation's counts.
struct phase_times {
  using clock = std::chrono::steady_clock;
  clock::time_point started = clock::now();
  double snapshots_ms = 0;
  double vms_ms = 0;
  double driver_ms = 0;
  double lead_ms = -1;          // the driver's lead answer; -1: none asked or used
  double prepare_ms = 0;        // the evaluation's driver-independent part
  clock::time_point judging;    // the driver answered, the VMIs are judged from here
  double first_handoff_ms = -1; // judging to the first candidates handed on; -1: none
  static double since(clock::time_point t) {
    return std::chrono::duration<double, std::milli>(clock::now() - t).count();
  }
};

/// The driver's answer for the volumes of the run's first VMIs, asked ahead of the whole
/// answer (docs/design.md §2.3), and those VMIs: until the whole answer is in, judging
/// stops at the first VMI it does not cover.
struct lead_answer {
  /// (namespace, name) of the VMIs it covers, sorted. Taken in the snapshot's order,
  /// which is the judging order but where one namespace's name begins another's.
  std::vector<std::pair<std::string, std::string>> covered;
  replica_map replicas;
  phase_times::clock::time_point asked;
};

/// The evaluation from its preparation (while the driver answers) to its last batch.
struct evaluation_pass {
  evaluation_input in;
  std::optional<evaluator> judge; // from the first batch on
  std::size_t handed = 0;         // judge's eligible entries handed to the engine
};

struct run_state : kind_run_state {
  static inline const char* name = "vm-hyperconvergence";
  run_state()
    : kind_run_state(vm_hyperconvergence_kind, {"MigrationFailed", "live migrations failed"}) {}

  vm_hyperconvergence_spec spec; // this kind's fragment of the request's spec
  duration cool_off{};
  run_progress progress{run_mode::migrate};
  run_inputs in;
  phase_times times;
  std::map<std::string, virtual_machine_instance_migration> ours; // adopted, by VMI key
  std::set<std::string> ours_keys;
  resume_ledger ledger;
  /// Set from the evaluation's preparation until its last batch is judged.
  std::optional<evaluation_pass> pass;
  lead_answer lead;
  int vm_reads_pending = 0; // the VirtualMachines and the opted-out namespaces
  bool judging_paused = false; // the lead's VMIs are judged: waiting for the whole answer
  std::vector<candidate_plan> queued; // handed on before the engine started
  supervisor_actor supervisor;
};

using run_pointer = vm_hyperconvergence_actor::stateful_pointer<run_state>;

// vm_gathering.cpp: reads the snapshots, the VirtualMachines' cool-off records, the
// opted-out namespaces and the driver's replica nodes, then starts the judging.
void gather(run_pointer self);

// vm_judging.cpp
/// The snapshots are read: what the evaluation needs besides the driver's answer and
/// the VirtualMachines is worked out while both are asked.
void prepare_evaluation(run_pointer self);
/// The VirtualMachines are read: their cool-off records and opt-outs complete it.
void complete_preparation(run_pointer self);
/// Both inputs are in: the evaluation starts (and, in a migrating run, the engine).
void begin_judging(run_pointer self);
/// Judges the next batch of VMIs and hands its eligible candidates on.
void judge_batch(run_pointer self);
/// The driver's whole answer came after judging began on its lead: the rest is judged.
void judge_the_rest(run_pointer self);

// vm_hyperconvergence_actor.cpp
/// Replies (once) when progress says nothing is left to wait for.
void maybe_reply(run_pointer self);
/// Moves run_progress to done and replies.
void reply(run_pointer self);
/// Writes the Migrating stage, then starts the supervisor and the queued candidates.
void start_engine(run_pointer self);
/// Gives plans to the engine (queued while its stage write is pending).
void hand_off(run_pointer self, std::vector<candidate_plan> plans);
/// No VMIM is created from now on; waits only for a pending stage write and the
/// candidates running. Plans not yet started are outstanding.
void stop_creating(run_pointer self);

} // namespace schedopt::vm_run
