// docs/design.md §3.1, §3.6: the VMIM schedopt creates, and how a VMIM's state maps onto a per-VM
// outcome and its "<Enum>: vmim=<ns>/<name>: ..." reason.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/duration.hpp"
#include "model/ownership_labels.hpp"
#include "model/objects.hpp"
#include "model/timestamp.hpp"

namespace schedopt {

struct migration_request {
  std::string request_name;
  std::string request_uid;
  std::string vmi_namespace;
  std::string vmi_name;
  std::string source_node;
  std::string target_node; // pinned when non-empty and pin is true
  bool pin = true;
};

/// The one name of the VMIM a request creates for a VMI: "<vmi>-schedopt-<10 characters of
/// the request uid>" (the VMI name shortened so the whole fits 253 characters). Fixed
/// rather than generateName so a create is idempotent: a POST retried after an ambiguous
/// 5xx or timeout cannot start a second migration, and the candidate can find its VMIM.
std::string migration_name(const std::string& vmi_name, const std::string& request_uid);

/// Create body: apiVersion kubevirt.io/v1, kind VirtualMachineInstanceMigration,
/// metadata {name migration_name(...), namespace, labels, annotations},
/// spec {vmiName, addedNodeSelector {"kubernetes.io/hostname": target} when pinning}.
nlohmann::json migration_create_body(const migration_request& r);

enum class migration_progress { running, succeeded, failed };

const char* to_string(migration_progress p);

struct migration_outcome {
  migration_progress progress = migration_progress::running;
  std::string reason; // set when failed
  /// Failed, and the VMIM holds KubeVirt's cause (migrationState.failureReason of this
  /// migration). KubeVirt writes phase=Failed first and the cause a reconcile later, and
  /// some failures have their cause only in the VMIM's events: a false here means "wait
  /// for it, then look there" (failure_from_events).
  bool cause_known = false;
};

/// Succeeded phase or migrationState.completed && !failed → succeeded; Failed phase (or
/// migrationState.failed) → failed with `MigrationRunFailed: vmim=<ns>/<name>: <why>`,
/// <why> = failureReason when migrationState names this VMIM (KubeVirt 1.3 copies the
/// VMI's state of any migration), else "migration failed".
migration_outcome classify_migration(const virtual_machine_instance_migration& m);

/// KubeVirt's words for a failure from the VMIM's own events (virt-controller's
/// migration controller): the newest Warning FailedMigration message, followed by the
/// SuccessfulDelete that gave up its target pod ("unschedulable pod <ns>/<pod> timeout
/// period exceeded") when there is one. Empty when the events say nothing.
std::string failure_from_events(const std::vector<event>& events);

/// Whether KubeVirt has taken the migration up: it left Pending, where it waits for a slot
/// under parallelMigrationsPerCluster. migrationTimeout runs from then (docs/design.md §3.6).
bool handed_off(const virtual_machine_instance_migration& m);

/// When it left Pending: the earliest phaseTransitionTimestamp of a later phase. nullopt
/// when not handed off or the VMIM records no such time.
std::optional<timestamp> hand_off_time(const virtual_machine_instance_migration& m);

/// KubeVirt's words when it holds the migration Pending for a VM backup: the message of
/// the VMIM's `migrationBlockedByBackup` condition ("Waiting for backup NAME to
/// complete"), set from KubeVirt 1.8 by virt-controller's migration controller
/// (pkg/virt-controller/watch/migration/migration.go handleVMBackup). nullopt when the
/// VMIM has left Pending or carries no such True condition.
std::optional<std::string> blocked_by_backup(const virtual_machine_instance_migration& m);

/// `BackupInProgress: vmim=<ns>/<name>: <KubeVirt's message>`.
std::string backup_in_progress_reason(std::string_view ns, std::string_view name,
                                      std::string_view kubevirt_message);

/// `MigrationRunFailed: vmim=<ns>/<name>: <why>`.
std::string run_failed_reason(std::string_view ns, std::string_view name, std::string_view why);

/// `MigrationTimedOut: vmim=<ns>/<name>: not final after <Go duration>`
std::string timed_out_reason(std::string_view ns, std::string_view name, duration timeout);
/// `MigrationRunFailed: vmim=<ns>/<name>: deleted before completion`
std::string deleted_reason(std::string_view ns, std::string_view name);
/// `MigrationCreateFailed: <API message>`
std::string create_failed_reason(std::string_view api_message);

} // namespace schedopt
