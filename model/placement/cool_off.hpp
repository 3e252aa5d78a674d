// docs/design.md §3.5 cool-off: the durable "last schedopt migration" record of a VM, kept as an
// annotation so it survives restarts and KubeVirt's garbage collection of old VMIMs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/duration.hpp"
#include "model/error.hpp"
#include "model/objects.hpp"
#include "model/timestamp.hpp"

namespace schedopt {

constexpr const char* default_cool_off_annotation =
  "schedopt.libopenstorage.org/last-migration-time";

/// The object that carries the record: the owning VirtualMachine when the VMI has a
/// controller ownerReference of kind VirtualMachine, else the VMI itself.
struct cool_off_holder {
  std::string api_version; // "kubevirt.io/v1"
  std::string kind;        // "VirtualMachine" or "VirtualMachineInstance"
  std::string resource;    // "virtualmachines" or "virtualmachineinstances"
  std::string namespace_;
  std::string name;
};

cool_off_holder cool_off_holder_of(const virtual_machine_instance& vmi);

/// Reads the record from the holder's annotations: nullopt when absent, an error naming
/// the annotation when its value is not RFC 3339.
expected<std::optional<timestamp>> recorded_migration_time(const string_map& annotations,
                                                           const std::string& key);

/// The companion annotation naming the request (uid) that wrote the record: a resumed
/// run ignores its own record for a VM it has no VMIM for (the create never happened).
std::string cool_off_request_annotation(const std::string& key);

/// The record's two annotations (`key` and its request companion): what an informer
/// store keeps of the objects that hold it.
std::vector<std::string> cool_off_record_keys(const std::string& key);

/// `{"metadata":{"annotations":{key: "<RFC3339>", key-request-uid: uid}}}` — merge patch
/// for the holder; `request_uid` "" writes the time only.
nlohmann::json cool_off_patch(const std::string& key, timestamp when,
                              const std::string& request_uid = "");

/// The two record annotations as the holder had them before a write (absent keys absent).
string_map cool_off_record_of(const string_map& annotations, const std::string& key);

/// Merge patch that puts the record back as `before` held it (absent keys removed): a
/// create that failed for good must not leave the VM cooling off (docs/design.md §3.5).
nlohmann::json cool_off_restore_patch(const std::string& key, const string_map& before);

/// Was the record written by this request?
bool cool_off_written_by(const string_map& annotations, const std::string& key,
                         const std::string& request_uid);

/// The latest of the record and the creation, start, end and phase-transition times of
/// schedopt-created VMIMs (label app.kubernetes.io/managed-by=schedopt) for the VMI.
/// Other VMIMs in `vmims` are ignored.
std::optional<timestamp>
latest_migration_time(std::optional<timestamp> record,
                      const std::vector<virtual_machine_instance_migration>& vmims);

timestamp eligible_after(timestamp last, duration period);
bool is_cooling_off(timestamp last, duration period, timestamp now);

} // namespace schedopt
