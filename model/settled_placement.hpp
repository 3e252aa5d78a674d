// Where a VMI runs once its finished migrations are taken into account.
//
// KubeVirt records a migration's end on two objects, the VMIM's phase and the VMI's
// nodeName, and a controller reads them from two watch streams. For a moment after a VMIM
// is seen Succeeded, the VMI in the informer may still name the source node. A request
// evaluated in that moment (the previous request has just become Final) would count a VM
// that already moved as a misplaced candidate and report it "CoolOff", a VM it never had
// to move. Settling the VMI on its latest succeeded migration's target closes that window.
#pragma once

#include <cstddef>
#include <vector>

#include "model/objects.hpp"

namespace schedopt {

/// For each VMI whose latest succeeded VMIM (by end time) is not yet recorded on the VMI
/// as completed, sets its nodeName and migrationState from that VMIM. Left alone: a VMI
/// created after the VMIM (a restarted VM), a VMI whose own migrationState is newer (it
/// names another migration, in flight or ended later). Returns how many were settled.
std::size_t settle_finished_migrations(std::vector<virtual_machine_instance>& vmis,
                                       const std::vector<virtual_machine_instance_migration>& vmims);

} // namespace schedopt
