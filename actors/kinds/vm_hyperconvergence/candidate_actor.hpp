// One actor per VM candidate of a run: waits for the supervisor's admission, records
// the cool-off, creates the VMIM (or adopts one on resume), and reports the outcome.
#pragma once

#include "actors/controller_context.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_actors.hpp"
#include "model/kinds/vm_hyperconvergence/evaluation.hpp"

namespace schedopt {

struct candidate_plan {
  std::string request_name;
  std::string request_uid;
  virtual_machine_instance vmi;
  std::vector<std::string> target_nodes;
  /// Resume: a VMIM of this request already exists for the VM.
  std::optional<virtual_machine_instance_migration> adopted;
  /// The holder's cool-off record before this run wrote it (cool_off_record_of), put
  /// back when the create is rejected for good.
  string_map cool_off_before;
  /// Every node holding a replica of one of its driver volumes, sorted: a landing
  /// elsewhere is MigratedOffReplica. Empty when not known (an adopted VMIM's VM).
  std::vector<std::string> replica_holders;
};

/// Linked to `parent` (the kind): a shutdown stops the candidate and its VMIM watch.
candidate_actor spawn_candidate(caf::local_actor* parent, const controller_context& ctx,
                                vm_hyperconvergence_actor kind, supervisor_actor supervisor,
                                candidate_plan plan);

} // namespace schedopt
