// Settling VMIs on their finished migrations; see settled_placement.hpp.
#include "model/settled_placement.hpp"

#include <map>
#include <optional>
#include <string>

#include "model/evaluation.hpp"
#include "model/timestamp.hpp"
#include "model/vmim_outcome.hpp"

namespace schedopt {

namespace {

std::optional<timestamp> time_of(const std::string& text) {
  if (text.empty())
    return std::nullopt;
  auto t = parse_rfc3339(text);
  return t ? std::optional<timestamp>{*t} : std::nullopt;
}

/// When a succeeded VMIM ended: its migrationState's end, else its creation.
std::optional<timestamp> end_of(const virtual_machine_instance_migration& m) {
  if (auto t = time_of(m.migration->end_timestamp))
    return t;
  return time_of(m.metadata.creation_timestamp);
}

bool later(const std::optional<timestamp>& a, const std::optional<timestamp>& b) {
  return a && (!b || *a > *b);
}

} // namespace

std::size_t settle_finished_migrations(std::vector<virtual_machine_instance>& vmis,
                                       const std::vector<virtual_machine_instance_migration>& vmims) {
  std::map<std::string, const virtual_machine_instance_migration*> latest;
  for (const auto& m : vmims) {
    if (m.vmi_name.empty() || !m.migration || m.migration->target_node.empty()
        || classify_migration(m).progress != migration_progress::succeeded)
      continue;
    auto& slot = latest[vmi_key(m.metadata.namespace_, m.vmi_name)];
    if (slot == nullptr || later(end_of(m), end_of(*slot)))
      slot = &m;
  }
  std::size_t settled = 0;
  for (auto& vmi : vmis) {
    auto i = latest.find(vmi_key(vmi.metadata.namespace_, vmi.metadata.name));
    if (i == latest.end())
      continue;
    const auto& m = *i->second;
    if (later(time_of(vmi.metadata.creation_timestamp), time_of(m.metadata.creation_timestamp)))
      continue; // the VMI was created after this migration: a restarted VM
    if (vmi.migration) {
      const auto& own = *vmi.migration;
      if (own.migration_uid == m.metadata.uid && own.completed)
        continue; // the VMI has recorded this migration's end
      if (own.migration_uid != m.metadata.uid
          && (!own.completed || !later(end_of(m), time_of(own.end_timestamp))))
        continue; // the VMI names another migration: in flight, or ended later
    }
    if (vmi.node_name == m.migration->target_node)
      continue; // already where the migration put it
    vmi.node_name = m.migration->target_node;
    vmi.migration = m.migration;
    vmi.migration->migration_uid = m.metadata.uid;
    ++settled;
  }
  return settled;
}

} // namespace schedopt
