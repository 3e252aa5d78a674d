// Every branch follows pod-eviction-admitter.go Admit; the messages are KubeVirt's,
// since descheduler and kubectl users read them.
#include "sim/pod_eviction_admitter.hpp"

#include <nlohmann/json.hpp>

#include "sim/kubevirt_names.hpp"
#include "sim/object_store.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

/// types.go VirtualMachineInstance.IsMigratable: condition LiveMigratable=True.
bool is_migratable(const json& vmi) {
  for (const auto& c : vmi.value("/status/conditions"_json_pointer, json::array()))
    if (c.value("type", "") == "LiveMigratable" && c.value("status", "") == "True")
      return true;
  return false;
}

eviction_answer eviction_denied(std::string message) {
  return {false, std::move(message)};
}

} // namespace

eviction_answer admit_pod_eviction(object_store& store, const launcher_pod& pod, const kubevirt_cr_settings& cluster,
                                   bool dry_run) {
  auto vmi = store.get(kubevirt::vmi_key, pod.ns, pod.vmi);
  if (!vmi)
    return eviction_denied("kubevirt failed getting the vmi: " + vmi.err().message);
  // pkg/util/migrations VMIEvictionStrategy: the VMI's own, else the cluster's.
  auto strategy = vmi->value("/spec/evictionStrategy"_json_pointer, std::string{});
  if (strategy.empty())
    strategy = cluster.eviction_strategy;
  bool mark = false;
  if (strategy == "LiveMigrate") {
    if (!is_migratable(*vmi))
      return eviction_denied("VMI " + pod.vmi + " is configured with an eviction strategy but is not live-migratable");
    mark = true;
  } else if (strategy == "LiveMigrateIfPossible") {
    mark = is_migratable(*vmi);
  } else if (strategy == "External") {
    mark = true;
  }
  if (!mark)
    return {true, {}}; // None, or LiveMigrateIfPossible of a VMI that cannot migrate
  const std::string evicting = "Eviction triggered evacuation of VMI \"" + pod.ns + "/" + pod.vmi + "\"";
  if (!vmi->value("/status/evacuationNodeName"_json_pointer, std::string{}).empty())
    return eviction_denied("Evacuation in progress: " + evicting);
  if (vmi->value("/status/nodeName"_json_pointer, std::string{}) != pod.node)
    return eviction_denied("Eviction request for target Pod");
  // markVMI: a JSON patch add of /status/evacuationNodeName on the VMI itself (not its
  // /status subresource), which a VMI type with a status subresource would take as such.
  if (dry_run)
    return eviction_denied(evicting);
  auto type = store.find_type(kubevirt::vmi_key);
  bool status_only = type && type->status_subresource;
  auto marked = store.modify(
    kubevirt::vmi_key, pod.ns, pod.vmi,
    [&](json& object) {
      object["status"]["evacuationNodeName"] = pod.node;
      return true;
    },
    status_only);
  if (!marked)
    return eviction_denied("kubevirt failed marking the vmi for eviction: " + marked.err().message);
  return eviction_denied(evicting);
}

} // namespace schedopt::sim
