// docs/design.md §3.2: the KubeVirt CR as schedopt reads it, the migration limits it
// implies (KubeVirt's defaults for what it leaves out), the per-VM timeout
// KubeVirt's migration monitor would allow, and which VMIMs are KubeVirt's own
// migrations waiting for a slot.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "model/duration.hpp"
#include "model/objects.hpp"

namespace schedopt {

/// A `kubevirts.kubevirt.io/v1` object: spec.configuration.migrations and the version
/// its operator deployed. Absent fields stay nullopt (KubeVirt's defaults apply).
struct kubevirt_cr {
  object_meta metadata;
  std::optional<int64_t> parallel_migrations_per_cluster;
  std::optional<int64_t> parallel_outbound_migrations_per_node;
  std::optional<int64_t> completion_timeout_per_gib; // seconds
  std::optional<int64_t> progress_timeout;           // seconds
  std::string phase;            // status.phase: Deployed, Deploying, ...
  std::string observed_version; // status.observedKubeVirtVersion, "v1.6.0"
  /// spec.configuration.developerConfiguration.featureGates
  std::vector<std::string> feature_gates;
};

/// KubeVirt's "v1.6.0" (also "1.6", "v1.6.0-rc.1") as (major, minor); nullopt when not a
/// version.
std::optional<std::pair<int, int>> parse_kubevirt_version(const std::string& text);

/// What schedopt follows of a KubeVirt CR, KubeVirt's defaults filled in.
struct kubevirt_migration_limits {
  int64_t parallel_migrations_per_cluster = 5;
  int64_t parallel_outbound_migrations_per_node = 2;
  /// 150 from KubeVirt 1.4 on (and for an unknown version), 800 before.
  int64_t completion_timeout_per_gib = 150;
  int64_t progress_timeout_seconds = 150;
  /// spec.addedNodeSelector exists (KubeVirt 1.6 on); true when the version is unknown,
  /// so a created VMIM decides (the pin pruned from it says otherwise).
  bool pinning_supported = true;
  /// virt-controller orders pending migrations by spec.priority, a drain's first
  /// (MigrationPriorityQueue: GA from 1.9, from 1.7 when the CR lists the gate). False
  /// when the version is unknown.
  bool priority_queue = false;
  std::string version; // as observed; empty when unknown
};

bool operator==(const kubevirt_migration_limits& a, const kubevirt_migration_limits& b);
inline bool operator!=(const kubevirt_migration_limits& a, const kubevirt_migration_limits& b) {
  return !(a == b);
}

/// yieldToKubevirt: whether schedopt holds its new VMIMs while KubeVirt's own wait.
enum class yield_mode { automatic, always, never };

/// "auto", "true", "false" (validated by the setting); anything else is automatic.
yield_mode yield_mode_of(const std::string& text);

/// Whether admissions hold while `kubevirt_waiting` of KubeVirt's own migrations wait for
/// a slot. Automatic yields unless KubeVirt's priority queue already puts them first: on
/// 1.9 yielding left a drain no faster and schedopt's run slower (docs/kubevirt-versions.md).
bool yields_to_kubevirt(yield_mode mode, const kubevirt_migration_limits& limits,
                        int64_t kubevirt_waiting);

/// The CR's limits with KubeVirt's defaults for absent (or non-positive) fields.
kubevirt_migration_limits migration_limits_of(const kubevirt_cr& cr);

/// The in-flight buffer of a run: an explicit maxParallelMigrations (request spec or a
/// configured cluster default, already clamped) is honoured as a hint; the built-in
/// default is capped by KubeVirt's parallelMigrationsPerCluster. No limits: unchanged.
int64_t in_flight_capacity(int64_t effective, bool explicit_setting,
                           const std::optional<kubevirt_migration_limits>& limits);

/// What KubeVirt counts as a migration's data, in its units: the guest memory
/// (spec.domain.memory.guest, else the memory request) in decimal gigabytes rounded up,
/// as resource.Quantity.ScaledValue(resource.Giga) does in getVMIMigrationDataSize.
/// Volumes add nothing: with shared RWX storage none is migrated. nullopt: no memory known.
std::optional<int64_t> migration_data_size_gb(const virtual_machine_instance& vmi);

/// The per-VM migrationTimeout: `configured` when set explicitly, else what KubeVirt's
/// migration monitor allows (completionTimeoutPerGiB × data size + progressTimeout),
/// else (no KubeVirt CR, or a VMI without memory) `fallback`.
duration migration_timeout_for(const virtual_machine_instance& vmi,
                               std::optional<duration> configured,
                               const std::optional<kubevirt_migration_limits>& limits,
                               duration fallback);

/// A VMIM KubeVirt itself created (an evacuation, a workload update; anything not
/// labelled managed-by=schedopt) that waits for one of KubeVirt's slots: no phase yet,
/// or Pending.
bool is_kubevirt_migration_waiting(const virtual_machine_instance_migration& m);

/// The VMIMs of KubeVirt's own that wait, kept up to date one watch event at a time
/// (never a scan of every VMIM), keyed by the informer's object key.
/// A node no migration may target from now on: cordoned (spec.unschedulable, what
/// `kubectl drain` does first) or carrying KubeVirt's drain taint (nodeDrainTaintKey).
bool closed_to_migrations(const node& n);

class kubevirt_waiting_migrations {
public:
  /// An added or updated VMIM; returns whether count() changed.
  bool observe(const std::string& key, const virtual_machine_instance_migration& m);
  /// A deleted VMIM; returns whether count() changed.
  bool erase(const std::string& key);
  std::size_t count() const { return waiting_.size(); }

private:
  std::set<std::string> waiting_;
};

} // namespace schedopt
