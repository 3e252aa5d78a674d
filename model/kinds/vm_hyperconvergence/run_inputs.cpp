// A run's inputs and what is decided from them alone; see run_inputs.hpp.
#include "model/kinds/vm_hyperconvergence/run_inputs.hpp"

#include "model/placement/cool_off.hpp"
#include "model/ownership_labels.hpp"

namespace schedopt {

const string_map& holder_annotations(const run_inputs& in, const virtual_machine_instance& vmi) {
  static const string_map none;
  if (vmi.controller_vm.empty())
    return vmi.metadata.annotations;
  auto i = in.vm_annotations.find(vmi_key(vmi.metadata.namespace_, vmi.controller_vm));
  return i == in.vm_annotations.end() ? none : i->second;
}

string_map cool_off_before(const run_inputs& in, const virtual_machine_instance& vmi,
                           const std::string& annotation) {
  return cool_off_record_of(holder_annotations(in, vmi), annotation);
}

last_migration_times last_migrations(const run_inputs& in, const std::string& annotation,
                                     const std::string& request_uid,
                                     const std::set<std::string>& adopted) {
  std::map<std::string, std::vector<virtual_machine_instance_migration>> by_vmi;
  for (auto& m : in.vmims)
    by_vmi[vmi_key(m.metadata.namespace_, m.vmi_name)].push_back(m);
  last_migration_times out;
  for (auto& shared : in.vmis) {
    const auto& vmi = *shared;
    auto key = vmi_key(vmi.metadata.namespace_, vmi.metadata.name);
    const string_map& annotations = holder_annotations(in, vmi);
    auto vmims = by_vmi.find(key);
    // Neither a record nor a VMI migration: nothing to know (nearly every VMI). Skipped
    // before anything is built for it: this loop runs over every VMI of the cluster.
    if (annotations.count(annotation) == 0 && vmims == by_vmi.end())
      continue;
    if (!adopted.count(key) && cool_off_written_by(annotations, annotation, request_uid))
      continue;
    std::optional<timestamp> record;
    auto parsed = recorded_migration_time(annotations, annotation);
    if (parsed)
      record = *parsed;
    else
      out.ignored.push_back({vmi.metadata.namespace_, vmi.metadata.name, parsed.err().message});
    static const std::vector<virtual_machine_instance_migration> no_vmims;
    auto latest = latest_migration_time(record, vmims != by_vmi.end() ? vmims->second : no_vmims);
    if (latest)
      out.by_vmi[key] = *latest;
  }
  return out;
}

std::map<std::string, virtual_machine_instance_migration>
vmims_of_request(const std::vector<virtual_machine_instance_migration>& vmims,
                 const std::string& request_uid) {
  std::map<std::string, virtual_machine_instance_migration> out;
  for (auto& m : vmims) {
    auto label = m.metadata.labels.find(labels::request_uid);
    if (label != m.metadata.labels.end() && label->second == request_uid)
      out[vmi_key(m.metadata.namespace_, m.vmi_name)] = m;
  }
  return out;
}

std::vector<candidate_plan>
adopted_plans(const run_inputs& in,
              const std::map<std::string, virtual_machine_instance_migration>& ours,
              const resume_ledger& ledger, const std::string& request_name,
              const std::string& request_uid, const std::string& annotation) {
  std::vector<candidate_plan> plans;
  if (ours.empty())
    return plans;
  std::map<std::string, const virtual_machine_instance*> vmi_by_key;
  for (auto& v : in.vmis)
    if (auto key = vmi_key(v->metadata.namespace_, v->metadata.name); ours.count(key))
      vmi_by_key.emplace(std::move(key), v.get());
  for (auto& [key, m] : ours) {
    if (ledger.accounted(key))
      continue; // its result is recorded
    auto i = vmi_by_key.find(key);
    candidate_plan plan{request_name, request_uid, {}, {}, m, {}, {}};
    if (i != vmi_by_key.end()) {
      plan.vmi = *i->second;
      plan.cool_off_before = cool_off_before(in, plan.vmi, annotation);
    } else {
      plan.vmi.metadata.namespace_ = m.metadata.namespace_;
      plan.vmi.metadata.name = m.vmi_name;
    }
    plans.push_back(std::move(plan));
  }
  return plans;
}

} // namespace schedopt
