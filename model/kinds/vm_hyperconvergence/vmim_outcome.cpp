// VMIM create body and VMIM state -> per-VM outcome (docs/design.md §3.6).
#include "model/kinds/vm_hyperconvergence/vmim_outcome.hpp"

#include <cctype>

#include <nlohmann/json.hpp>

#include "model/reason.hpp"
#include "model/timestamp.hpp"

namespace schedopt {

namespace {

std::string vmim_detail(std::string_view ns, std::string_view name, std::string_view why) {
  std::string out = "vmim=";
  out.append(ns);
  out += '/';
  out.append(name);
  out += ": ";
  out.append(why);
  return out;
}

// KubeVirt's cause, copied from the VMI's migrationState (pkg/virt-controller/watch/
// migration/migration.go updateStatus). Its conditions (migrationAbortRequested,
// migrationRejectedByResourceQuota) carry no message.
std::string own_failure_reason(const virtual_machine_instance_migration& m) {
  if (!m.migration || m.migration->failure_reason.empty())
    return {};
  if (!m.migration->migration_uid.empty() && !m.metadata.uid.empty()
      && m.migration->migration_uid != m.metadata.uid)
    return {}; // another migration's state
  return m.migration->failure_reason;
}

} // namespace

std::string migration_name(const std::string& vmi_name, const std::string& request_uid) {
  std::string suffix;
  for (char c : request_uid) {
    if (suffix.size() == 10)
      break;
    if (std::isalnum(static_cast<unsigned char>(c)))
      suffix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (suffix.empty())
    suffix = "0";
  const std::string infix = "-schedopt-";
  auto room = 253 - infix.size() - suffix.size();
  return vmi_name.substr(0, room) + infix + suffix;
}

nlohmann::json migration_create_body(const migration_request& r) {
  nlohmann::json body;
  body["apiVersion"] = "kubevirt.io/v1";
  body["kind"] = "VirtualMachineInstanceMigration";
  auto& meta = body["metadata"];
  meta["name"] = migration_name(r.vmi_name, r.request_uid);
  meta["namespace"] = r.vmi_namespace;
  meta["labels"][labels::managed_by] = labels::managed_by_value;
  meta["labels"][labels::request_uid] = r.request_uid;
  meta["annotations"][labels::request_annotation] = r.request_name;
  meta["annotations"][labels::source_node_annotation] = r.source_node;
  body["spec"]["vmiName"] = r.vmi_name;
  if (r.pin && !r.target_node.empty())
    body["spec"]["addedNodeSelector"][labels::hostname] = r.target_node;
  return body;
}

const char* to_string(migration_progress p) {
  switch (p) {
    case migration_progress::running: return "running";
    case migration_progress::succeeded: return "succeeded";
    case migration_progress::failed: return "failed";
  }
  return "unknown";
}

migration_outcome classify_migration(const virtual_machine_instance_migration& m) {
  const auto& ns = m.metadata.namespace_;
  const auto& name = m.metadata.name;
  bool state_failed = m.migration && m.migration->completed && m.migration->failed;
  if (m.phase == "Failed" || state_failed) {
    auto cause = own_failure_reason(m);
    bool known = !cause.empty();
    return {migration_progress::failed, run_failed_reason(ns, name, known ? cause : "migration failed"), known};
  }
  bool state_succeeded = m.migration && m.migration->completed && !m.migration->failed;
  if (m.phase == "Succeeded" || state_succeeded)
    return {migration_progress::succeeded, {}};
  return {migration_progress::running, {}};
}

std::string run_failed_reason(std::string_view ns, std::string_view name, std::string_view why) {
  return make_reason(reason_kind::migration_run_failed, vmim_detail(ns, name, why));
}

std::string failure_from_events(const std::vector<event>& events) {
  const event* failed = nullptr;
  const event* gave_up = nullptr;
  auto newer = [](const event* have, const event& e) {
    return !have || have->last_timestamp <= e.last_timestamp;
  };
  for (const auto& e : events) {
    if (e.type == "Warning" && e.reason == "FailedMigration" && newer(failed, e))
      failed = &e;
    if (e.reason == "SuccessfulDelete" && e.message.find("timeout period exceeded") != std::string::npos
        && newer(gave_up, e))
      gave_up = &e;
  }
  std::string out = failed ? failed->message : std::string{};
  if (gave_up)
    out += (out.empty() ? "" : " ") + std::string{"("} + gave_up->message + ")";
  return out;
}

std::string timed_out_reason(std::string_view ns, std::string_view name, duration timeout) {
  return make_reason(reason_kind::migration_timed_out,
                     vmim_detail(ns, name, "not final after " + format_go_duration(timeout)));
}

std::string deleted_reason(std::string_view ns, std::string_view name) {
  return make_reason(reason_kind::migration_run_failed,
                     vmim_detail(ns, name, "deleted before completion"));
}

std::optional<std::string> blocked_by_backup(const virtual_machine_instance_migration& m) {
  if (handed_off(m))
    return std::nullopt;
  for (const auto& c : m.conditions)
    if (c.type == "migrationBlockedByBackup" && c.status == "True")
      return c.message.empty() ? c.reason : c.message;
  return std::nullopt;
}

std::string backup_in_progress_reason(std::string_view ns, std::string_view name,
                                      std::string_view kubevirt_message) {
  return make_reason(reason_kind::backup_in_progress, vmim_detail(ns, name, kubevirt_message));
}

std::string create_failed_reason(std::string_view api_message) {
  return make_reason(reason_kind::migration_create_failed, api_message);
}

bool handed_off(const virtual_machine_instance_migration& m) {
  return !m.phase.empty() && m.phase != "Pending";
}

std::optional<timestamp> hand_off_time(const virtual_machine_instance_migration& m) {
  if (!handed_off(m))
    return std::nullopt;
  std::optional<timestamp> earliest;
  for (auto& t : m.phase_transition_timestamps) {
    if (t.phase.empty() || t.phase == "Pending")
      continue;
    if (auto when = parse_rfc3339(t.timestamp); when && (!earliest || *when < *earliest))
      earliest = *when;
  }
  return earliest;
}

} // namespace schedopt
