// Settling VMIs on their finished migrations; see settled_placement.hpp.
#include "model/settled_placement.hpp"

#include <map>
#include <string>

#include "model/vmim_outcome.hpp"

namespace schedopt {

std::size_t settle_finished_migrations(std::vector<virtual_machine_instance>& vmis,
                                       const std::vector<virtual_machine_instance_migration>& vmims) {
  std::map<std::string, const virtual_machine_instance_migration*> succeeded; // by VMIM uid
  for (const auto& m : vmims)
    if (m.migration && !m.migration->target_node.empty()
        && classify_migration(m).progress == migration_progress::succeeded)
      succeeded.emplace(m.metadata.uid, &m);
  std::size_t settled = 0;
  for (auto& vmi : vmis) {
    if (!vmi.migration || vmi.migration->completed || vmi.migration->migration_uid.empty())
      continue;
    auto i = succeeded.find(vmi.migration->migration_uid);
    if (i == succeeded.end())
      continue; // still running as far as anyone knows, or failed
    const auto& m = *i->second;
    if (m.vmi_name != vmi.metadata.name || m.metadata.namespace_ != vmi.metadata.namespace_)
      continue;
    vmi.node_name = m.migration->target_node;
    vmi.migration = m.migration;
    vmi.migration->migration_uid = m.metadata.uid;
    ++settled;
  }
  return settled;
}

} // namespace schedopt
