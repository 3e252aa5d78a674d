// Small facts about model objects that need code rather than a field.
#include "model/objects.hpp"

namespace schedopt {

std::string vmi_key(std::string_view namespace_, std::string_view name) {
  std::string key;
  key.reserve(namespace_.size() + 1 + name.size());
  key.append(namespace_).append(1, '/').append(name);
  return key;
}

bool is_final_phase(const std::string& phase) {
  return phase == "Succeeded" || phase == "Failed";
}

const std::vector<std::string>& affinity_hostnames_of(const persistent_volume& pv) {
  static const std::vector<std::string> none;
  return pv.affinity_hostnames ? *pv.affinity_hostnames : none;
}

const scheduling_constraints& constraints_of(const virtual_machine_instance& vmi) {
  static const scheduling_constraints none;
  return vmi.constraints ? *vmi.constraints : none;
}

scheduling_constraints& edit_constraints(virtual_machine_instance& vmi) {
  if (!vmi.constraints)
    vmi.constraints.emplace();
  return *vmi.constraints;
}

const kind_status_block* block_of(const scheduling_optimization_status& status,
                                  const std::string& kind) {
  auto i = status.kinds.find(kind);
  return i == status.kinds.end() ? nullptr : &i->second;
}

} // namespace schedopt
