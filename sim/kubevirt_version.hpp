// Which KubeVirt release the simulator answers as (--kubevirt-version): what of the API
// that release serves.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/error.hpp"

namespace schedopt::sim {

/// A KubeVirt minor release of the 1.x line the simulator models.
struct kubevirt_version {
  int minor = 6;

  std::string text() const { return "1." + std::to_string(minor); }
  /// VirtualMachineInstanceMigrationSpec.addedNodeSelector exists from 1.6 on.
  bool has_added_node_selector() const { return minor >= 6; }
  /// VirtualMachineInstanceMigrationSpec.priority exists from 1.7 on.
  bool has_migration_priority() const { return minor >= 7; }
  /// The MigrationPriorityQueue gate is GA from 1.9 (pkg/virt-config/featuregate/
  /// inactive.go): always on, every check of it removed. In 1.7 (Alpha) and 1.8 (Beta,
  /// still off by default) it is on only when the KubeVirt CR lists it.
  bool priority_queue_always_on() const { return minor >= 9; }
  /// A running VM backup holds a pending migration (migrationBlockedByBackup) from 1.8.
  bool has_backup_block() const { return minor >= 8; }
};

/// "1.3" to "1.9"; anything else is a one-line error naming what is accepted.
expected<kubevirt_version> parse_kubevirt_version(const std::string& text);

/// Shapes the VMIM CRD (as shipped in sim/crds, the 1.9 schema) to what `v` serves: an
/// older release's structural schema lacks the later spec fields, so the API server
/// prunes them from every VMIM written.
void shape_vmim_crd(nlohmann::json& crd, kubevirt_version v);

} // namespace schedopt::sim
