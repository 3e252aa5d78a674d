// KubeVirt's VMIM create webhooks (migration-create-validator and the mutator): validate
// the priority's setter, the VMI and in-flight migrations, then add the vmi-name label and
// finalizer.
#pragma once

#include "sim/kubevirt_version.hpp"
#include "sim/object_store.hpp"

namespace schedopt::sim {

/// The hook to install with store.set_admission(kubevirt::vmim_key, ...). It reads the
/// store, so the store must call it without holding its lock.
/// `version` decides what the priority field may be (1.7 on).
object_store::admission_hook make_migration_admission(object_store& store, kubevirt_version version = {});

} // namespace schedopt::sim
