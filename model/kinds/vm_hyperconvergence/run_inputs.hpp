// What one vmHyperconvergence run reads before it judges (docs/design.md §2, §3.5, §4.1),
// and the decisions taken from that alone: the last migration of each VM, the cool-off
// record a candidate puts back, the VMIMs a resumed run adopts.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "model/kinds/vm_hyperconvergence/candidate_plan.hpp"
#include "model/kinds/vm_hyperconvergence/evaluation.hpp"
#include "model/objects.hpp"
#include "model/resume_ledger.hpp"
#include "model/timestamp.hpp"

namespace schedopt {

/// Everything the evaluation reads, gathered step by step by the kind actor.
struct run_inputs {
  // The big stores are read as shared snapshots (copy-on-write, k8s/informer_store.hpp).
  shared_list<virtual_machine_instance> vmis;
  std::vector<virtual_machine_instance_migration> vmims;
  shared_list<persistent_volume_claim> pvcs;
  std::vector<persistent_volume_claim> explained_pvcs; // kept for `schedopt explain` only
  shared_list<persistent_volume> pvs;
  std::vector<node> nodes;
  std::map<std::string, string_map> vm_annotations; // "<ns>/<name>" of VirtualMachines
  std::set<std::string> opted_out_vms;              // "<ns>/<name>", labelled to be left alone
  std::set<std::string> opted_out_namespaces;       // labelled to be left alone
  std::shared_ptr<volume_mapper> mapper;            // step 1, done as the VMIs are judged
  std::vector<vmi_volumes> volumes;                 // step 1 done first, for `explain`
  replica_map replicas;                             // the driver's answer
};

/// The annotations of a VMI's cool-off holder (cool_off_holder_of) as the run read them:
/// its controlling VM's (kept only when they hold a record: none otherwise), else its
/// own. Read for every VMI, so it builds nothing.
const string_map& holder_annotations(const run_inputs& in, const virtual_machine_instance& vmi);

/// The holder's cool-off record as it is now, for the candidate to restore.
string_map cool_off_before(const run_inputs& in, const virtual_machine_instance& vmi,
                           const std::string& annotation);

/// A cool-off record that does not parse: ignored, and said so.
struct ignored_cool_off_record {
  std::string namespace_;
  std::string vmi;
  std::string why;
};

struct last_migration_times {
  std::map<std::string, timestamp> by_vmi; // VMI key -> latest schedopt migration
  std::vector<ignored_cool_off_record> ignored;
};

/// Cool-off record per VMI key: the holder's annotation `annotation`, or the latest
/// schedopt VMIM. A record this request (`request_uid`) wrote for a VM it has no VMIM for
/// (`adopted`: VMI keys with one) is ignored: the run was interrupted between the record
/// and the create, so the VM was never migrated.
last_migration_times last_migrations(const run_inputs& in, const std::string& annotation,
                                     const std::string& request_uid,
                                     const std::set<std::string>& adopted);

/// The VMIMs labelled with this request's uid, by VMI key: a resumed run adopts them.
std::map<std::string, virtual_machine_instance_migration>
vmims_of_request(const std::vector<virtual_machine_instance_migration>& vmims,
                 const std::string& request_uid);

/// Plans for `ours` (vmims_of_request) whose result `ledger` does not hold yet, in VMI key
/// order: adopted, never created twice. A VMI gone since has a plan naming it only.
std::vector<candidate_plan>
adopted_plans(const run_inputs& in,
              const std::map<std::string, virtual_machine_instance_migration>& ours,
              const resume_ledger& ledger, const std::string& request_name,
              const std::string& request_uid, const std::string& annotation);

} // namespace schedopt
