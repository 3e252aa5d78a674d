// How long a migration's Running phase lasts and whether virt-launcher's migration
// monitor aborts it first: the VM's memory over the transfer rate, against KubeVirt's
// completionTimeoutPerGiB bound.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/kubevirt_config.hpp"

namespace schedopt::sim {

/// pkg/virt-launcher/virtwrap/manager.go getVMIMigrationDataSize: requests.memory, or
/// spec.domain.memory.guest when set. In bytes; 0 when neither parses. (Block-migrated
/// ephemeral disks and migrated volumes are not modelled.)
int64_t vmi_migration_memory_bytes(const nlohmann::json& vmi);

/// The same size as the monitor multiplies it: resource.Quantity ScaledValue(Giga), i.e.
/// decimal gigabytes rounded up (64Gi counts as 69).
int64_t migration_data_size_scaled(int64_t bytes);

/// The rate a migration runs at: `flag_rate` (bytes/s, 0 = none set) capped by the CR's
/// bandwidthPerMigration when that is non-zero (libvirt's max speed, set by
/// live-migration-source.go generateMigrationParams). 0: no rate, the stage table decides.
int64_t effective_bandwidth(int64_t flag_rate, const migration_config& config);

struct transfer_plan {
  std::chrono::milliseconds running{0}; // from Running to the end (success or abort)
  /// Non-zero when the monitor aborts at `running`: the acceptableCompletionTime in seconds.
  int64_t aborted_after_s = 0;
};

/// live-migration-source.go migrationMonitor: acceptableCompletionTime =
/// completionTimeoutPerGiB × data size; shouldTriggerTimeout fires once the elapsed whole
/// seconds exceed it (0 disables it). `transfer` is how long the copy itself would take.
transfer_plan plan_transfer(std::chrono::milliseconds transfer, int64_t memory_bytes,
                            const migration_config& config);

/// How long copying `memory_bytes` at `bandwidth` bytes/s takes (bandwidth > 0).
std::chrono::milliseconds transfer_time(int64_t memory_bytes, int64_t bandwidth);

/// processInflightMigration's abort message for the completion timeout.
std::string completion_timeout_reason(int64_t acceptable_s);

} // namespace schedopt::sim
