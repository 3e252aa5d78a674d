// One podHyperconvergence run's actor state, shared by the files that do its steps:
// pod_hyperconvergence_actor (its phases), pod_gathering (its inputs), pod_evaluating
// (the evaluation and the engine's start) and pod_evicting (the engine's I/O). What is
// decided is model/kinds/pod_hyperconvergence/'s (evaluate, eviction_engine, plan_resume).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "actors/kinds/kind_run.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_actors.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_hyperconvergence_actor.hpp"
#include "model/kinds/pod_hyperconvergence/eviction_engine.hpp"
#include "model/kinds/pod_hyperconvergence/pod_evaluation.hpp"
#include "model/kinds/pod_hyperconvergence/pod_resume.hpp"
#include "model/kinds/pod_hyperconvergence/pod_spec.hpp"

namespace schedopt::pod_run {

using namespace pod_hyperconvergence;

/// How long a run waits for the kind's informers (started on demand by its first run)
/// to list; past it the run fails, naming them: their list is refused (RBAC) or the
/// API server cannot serve it.
constexpr duration informer_sync_timeout = std::chrono::seconds(60);

/// Everything the evaluation reads.
struct inputs {
  shared_list<pod> pods;
  shared_list<stateful_set> stateful_sets;
  shared_list<replica_set> replica_sets;
  shared_list<pod_disruption_budget> budgets;
  shared_list<persistent_volume_claim> pvcs;
  shared_list<persistent_volume> pvs;
  std::vector<node> nodes;
  shared_list<virtual_machine_instance> vmis;
  std::vector<virtual_machine_instance_migration> vmims;
  std::set<std::string> opted_out_namespaces;
  std::vector<pod_volumes> volumes;
  replicas_by_pv replicas;
  std::map<std::string, std::string> replica_errors;
};

struct run_state : kind_run_state {
  static inline const char* name = "pod-hyperconvergence";
  run_state()
    : kind_run_state(pod_hyperconvergence::kind_field, {"EvictionFailed", "pod evictions failed"}) {}

  /// The kind's own informers, read from ctx when a run starts (pod_informers_of).
  pod_informers informers;
  run_settings run;
  timestamp sync_deadline{};
  inputs in;
  resume_plan resumed;
  /// Owners' annotations as the run read them, by describe(workload).
  std::map<std::string, string_map> owner_annotations;
  std::unique_ptr<eviction_engine> engine;
  std::optional<timestamp> tick_due; // the earliest tick already on its way
};

using run_pointer = pod_hyperconvergence_actor::stateful_pointer<run_state>;

// pod_gathering.cpp: waits for the kind's informers to list, reads the snapshots, the
// opted-out namespaces and the driver's replica nodes, then evaluates.
void wait_for_informers(run_pointer self);

// pod_evaluating.cpp: evaluates, records the skips, leaves a plan or an explanation for
// the command, or starts the engine (writing the Migrating stage first).
void evaluate_and_run(run_pointer self);

// pod_evicting.cpp
/// Does what the engine asks for now, hands its outcomes on, and replies once it is done.
void step(run_pointer self);
/// The tick handler while evicting: replacements are looked for first when awaited.
void tick(run_pointer self);
/// Counts an outcome and sends it to the status block (the writer keeps its detail).
void record_outcome(run_pointer self, const pod_detail& d);

// pod_hyperconvergence_actor.cpp
/// The phase that runs the engine, from its start to the reply.
pod_hyperconvergence_actor::behavior_type evicting(run_pointer self);

} // namespace schedopt::pod_run
