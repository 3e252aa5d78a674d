// What a candidate actor is given for one VM of a run: the VMI, where it may go, and what
// to put back should its migration never be created.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/objects.hpp"

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

} // namespace schedopt
