// SPEC §3 cool-off: the durable "last schedopt migration" record of a VM, kept as an
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

/// `{"metadata":{"annotations":{key: "<RFC3339>"}}}` — merge patch for the holder.
nlohmann::json cool_off_patch(const std::string& key, timestamp when);

/// The latest of the record and the creation, start, end and phase-transition times of
/// schedopt-created VMIMs (label app.kubernetes.io/managed-by=schedopt) for the VMI.
/// Other VMIMs in `vmims` are ignored.
std::optional<timestamp>
latest_migration_time(std::optional<timestamp> record,
                      const std::vector<virtual_machine_instance_migration>& vmims);

timestamp eligible_after(timestamp last, duration period);
bool is_cooling_off(timestamp last, duration period, timestamp now);

} // namespace schedopt
