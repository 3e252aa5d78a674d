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

/// For each VMI whose own migrationState names a migration it has not seen end, while
/// that VMIM is already Succeeded: sets its nodeName and migrationState from the VMIM.
/// Only the migration the VMI itself names counts, so a VMI created anew (a restarted VM,
/// no migrationState) or one that has recorded a later migration is left alone. Returns
/// how many were settled.
/// A settled VMI is replaced by a settled copy; the shared original is not touched.
std::size_t settle_finished_migrations(shared_list<virtual_machine_instance>& vmis,
                                       const std::vector<virtual_machine_instance_migration>& vmims);

} // namespace schedopt
