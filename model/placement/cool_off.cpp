// Cool-off record: which object holds it, how it is read and written, and whether a
// VM is still inside its cool-off window.
#include "model/placement/cool_off.hpp"

#include <nlohmann/json.hpp>

#include "model/ownership_labels.hpp"

namespace schedopt {

cool_off_holder cool_off_holder_of(const virtual_machine_instance& vmi) {
  if (!vmi.controller_vm.empty())
    return {"kubevirt.io/v1", "VirtualMachine", "virtualmachines", vmi.metadata.namespace_,
            std::string(std::string_view(vmi.controller_vm))};
  return {"kubevirt.io/v1", "VirtualMachineInstance", "virtualmachineinstances",
          vmi.metadata.namespace_, vmi.metadata.name};
}

expected<std::optional<timestamp>> recorded_migration_time(const string_map& annotations,
                                                           const std::string& key) {
  auto it = annotations.find(key);
  if (it == annotations.end() || it->second.empty())
    return std::optional<timestamp>{};
  auto t = parse_rfc3339(it->second);
  if (!t)
    return make_error(ec::invalid_timestamp,
                      "annotation " + key + " \"" + it->second + "\": " + t.err().message);
  return std::optional<timestamp>{*t};
}

std::string cool_off_request_annotation(const std::string& key) { return key + "-request-uid"; }

std::vector<std::string> cool_off_record_keys(const std::string& key) {
  return {key, cool_off_request_annotation(key)};
}

nlohmann::json cool_off_patch(const std::string& key, timestamp when,
                              const std::string& request_uid) {
  nlohmann::json patch;
  patch["metadata"]["annotations"][key] = format_rfc3339(when);
  if (!request_uid.empty())
    patch["metadata"]["annotations"][cool_off_request_annotation(key)] = request_uid;
  return patch;
}

string_map cool_off_record_of(const string_map& annotations, const std::string& key) {
  string_map out;
  for (const auto& k : {key, cool_off_request_annotation(key)})
    if (auto i = annotations.find(k); i != annotations.end())
      out.insert(*i);
  return out;
}

nlohmann::json cool_off_restore_patch(const std::string& key, const string_map& before) {
  nlohmann::json patch;
  auto& a = patch["metadata"]["annotations"];
  for (const auto& k : {key, cool_off_request_annotation(key)}) {
    auto i = before.find(k);
    a[k] = i == before.end() ? nlohmann::json(nullptr) : nlohmann::json(i->second);
  }
  return patch;
}

bool cool_off_written_by(const string_map& annotations, const std::string& key,
                         const std::string& request_uid) {
  auto i = annotations.find(cool_off_request_annotation(key));
  return !request_uid.empty() && i != annotations.end() && i->second == request_uid;
}

std::optional<timestamp>
latest_migration_time(std::optional<timestamp> record,
                      const std::vector<virtual_machine_instance_migration>& vmims) {
  std::optional<timestamp> latest = record;
  auto consider = [&](const std::string& text) {
    if (text.empty())
      return;
    if (auto t = parse_rfc3339(text); t && (!latest || *t > *latest))
      latest = *t;
  };
  for (const auto& m : vmims) {
    if (!is_schedopt_migration(m))
      continue;
    consider(m.metadata.creation_timestamp);
    for (const auto& p : m.phase_transition_timestamps)
      consider(p.timestamp);
    if (m.migration) {
      consider(m.migration->start_timestamp);
      consider(m.migration->end_timestamp);
    }
  }
  return latest;
}

timestamp eligible_after(timestamp last, duration period) {
  return last + std::chrono::duration_cast<timestamp::duration>(period);
}

bool is_cooling_off(timestamp last, duration period, timestamp now) {
  return now < eligible_after(last, period);
}

} // namespace schedopt
