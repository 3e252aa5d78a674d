// KubeVirt's resource keys, labels, finalizers and phase names, shared by the simulated
// KubeVirt pieces.
#pragma once

namespace schedopt::sim::kubevirt {

constexpr const char* vmi_key = "virtualmachineinstances.kubevirt.io";
constexpr const char* vmim_key = "virtualmachineinstancemigrations.kubevirt.io";
constexpr const char* vm_key = "virtualmachines.kubevirt.io";

constexpr const char* vmi_name_label = "kubevirt.io/vmi-name";              // v1.MigrationSelectorLabel
constexpr const char* migration_finalizer = "kubevirt.io/migrationJobFinalize";
constexpr const char* node_name_label = "kubevirt.io/nodeName";
constexpr const char* create_webhook = "migration-create-validator.kubevirt.io";
/// pkg/virt-config/featuregate (1.7 on): orders pending migrations by spec.priority.
constexpr const char* priority_queue_gate = "MigrationPriorityQueue";
/// types.go VirtualMachineInstanceMigrationBlockedByBackup (1.8 on).
constexpr const char* blocked_by_backup_condition = "migrationBlockedByBackup";

// VMIM phases, in the order a successful migration walks them.
constexpr const char* phase_pending = "Pending";
constexpr const char* phase_scheduling = "Scheduling";
constexpr const char* phase_scheduled = "Scheduled";
constexpr const char* phase_preparing_target = "PreparingTarget";
constexpr const char* phase_target_ready = "TargetReady";
constexpr const char* phase_running = "Running";
constexpr const char* phase_succeeded = "Succeeded";
constexpr const char* phase_failed = "Failed";

} // namespace schedopt::sim::kubevirt
