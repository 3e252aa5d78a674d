// Settling VMIs on their finished migrations; see settled_placement.hpp.
#include "model/kinds/vm_hyperconvergence/settled_placement.hpp"

#include <map>
#include <string>

#include "model/kinds/vm_hyperconvergence/vmim_outcome.hpp"

namespace schedopt {

std::size_t settle_finished_migrations(shared_list<virtual_machine_instance>& vmis,
                                       const std::vector<virtual_machine_instance_migration>& vmims) {
  std::map<std::string, const virtual_machine_instance_migration*> succeeded; // by VMIM uid
  for (const auto& m : vmims)
    if (m.migration && !m.migration->target_node.empty()
        && classify_migration(m).progress == migration_progress::succeeded)
      succeeded.emplace(m.metadata.uid, &m);
  std::size_t settled = 0;
  for (std::size_t at = 0; at < vmis.size(); ++at) {
    const auto& vmi = *vmis[at];
    if (!vmi.migration || vmi.migration->completed || vmi.migration->migration_uid.empty())
      continue;
    auto i = succeeded.find(vmi.migration->migration_uid);
    if (i == succeeded.end())
      continue; // still running as far as anyone knows, or failed
    const auto& m = *i->second;
    if (m.vmi_name != vmi.metadata.name || m.metadata.namespace_ != vmi.metadata.namespace_)
      continue;
    auto moved = std::make_shared<virtual_machine_instance>(vmi);
    moved->node_name = m.migration->target_node;
    moved->migration = m.migration;
    moved->migration->migration_uid = m.metadata.uid;
    vmis.edit()[at] = std::move(moved); // the first one copies a list others read
    ++settled;
  }
  return settled;
}

} // namespace schedopt
