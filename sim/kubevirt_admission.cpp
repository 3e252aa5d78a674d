// Messages are KubeVirt's (pkg/virt-api/webhooks/validating-webhook/admitters/
// migration-create-admitter.go) as the API server relays them: "admission webhook
// \"<name>\" denied the request: <message>", HTTP 400 (ToAdmissionResponseError) or
// 422 for a spec validation cause.
#include "sim/kubevirt_admission.hpp"

#include "sim/json_fields.hpp"
#include "sim/kubevirt_config.hpp"
#include "sim/kubevirt_cr_settings.hpp"
#include "sim/kubevirt_names.hpp"
#include "sim/request_user.hpp"

namespace schedopt::sim {

namespace {

error denied(const std::string& message, int http_status = 400) {
  return make_error(ec::invalid_request,
                    std::string{"admission webhook \""} + kubevirt::create_webhook +
                        "\" denied the request: " + message,
                    http_status);
}

bool is_final_vmim(const json& m) {
  auto phase = text_at(m, "/status/phase"_json_pointer);
  return phase == kubevirt::phase_succeeded || phase == kubevirt::phase_failed;
}

/// migration-create-admitter.go hasRequestOriginatedFromVirtController: one of KubeVirt's
/// service accounts in its install namespace, and the one named kubevirt-controller. A
/// write with no request behind it is the simulator's own KubeVirt.
bool from_virt_controller(const object_store& store) {
  const std::string* user = current_request_user();
  if (user == nullptr)
    return true;
  auto cr = find_kubevirt_cr(store);
  auto ns = cr ? text_at(*cr, "/metadata/namespace"_json_pointer) : std::string{};
  return *user == "system:serviceaccount:" + (ns.empty() ? std::string{"kubevirt"} : ns) + ":kubevirt-controller";
}

/// migration-create-admitter.go Admit, its priority checks (1.7 on), made before the VMI
/// is looked up: the gate first (1.7 and 1.8; GA from 1.9), then who sets it.
std::optional<error> refuse_priority(const object_store& store, const json& object, kubevirt_version version) {
  if (!version.has_migration_priority() || !object.contains("/spec/priority"_json_pointer)
      || object.at("/spec/priority"_json_pointer).is_null())
    return std::nullopt;
  if (!version.priority_queue_always_on()
      && !read_kubevirt_cr_settings(store).lists_gate(kubevirt::priority_queue_gate))
    return denied("MigrationPriorityQueue feature gate is not enabled in kubevirt resource", 422);
  if (!from_virt_controller(store))
    return denied("Migration priority queue, only virt-controller is allowed to set priority field", 422);
  return std::nullopt;
}

} // namespace

object_store::admission_hook make_migration_admission(object_store& store, kubevirt_version version) {
  return [&store, version](json& object) -> std::optional<error> {
    if (!object.is_object())
      return denied("request object is not a JSON object");
    if (auto refused = refuse_priority(store, object, version))
      return refused;
    auto ns = text_at(object, "/metadata/namespace"_json_pointer);
    auto vmi_name = text_at(object, "/spec/vmiName"_json_pointer);
    if (vmi_name.empty())
      return denied("vmiName is missing", 422);
    auto vmi = store.get(kubevirt::vmi_key, ns, vmi_name);
    if (!vmi)
      return denied("the VMI \"" + ns + "/" + vmi_name + "\" does not exist");
    auto vmi_phase = text_at(*vmi, "/status/phase"_json_pointer);
    if (vmi_phase == "Succeeded" || vmi_phase == "Failed")
      return denied("Cannot migrate VMI in finalized state.");
    if (auto conds = vmi->find("status"); conds != vmi->end() && conds->contains("conditions")) {
      for (const auto& c : (*conds)["conditions"]) {
        if (c.value("type", "") == "LiveMigratable" && c.value("status", "") == "False")
          return denied("Cannot migrate VMI, Reason: " + c.value("reason", "") +
                        ", Message: " + c.value("message", ""));
      }
    }
    for (const auto& m : store.list(kubevirt::vmim_key, ns).items) {
      if (text_at(m, "/spec/vmiName"_json_pointer) != vmi_name || is_final_vmim(m))
        continue;
      return denied("in-flight migration detected. Active migration job (" +
                    text_at(m, "/metadata/uid"_json_pointer) +
                    ") is currently already in progress for VMI " + vmi_name + ".");
    }
    // The mutating webhook's part.
    auto& meta = object["metadata"];
    meta["labels"][kubevirt::vmi_name_label] = vmi_name;
    auto& finalizers = meta["finalizers"];
    if (!finalizers.is_array())
      finalizers = json::array();
    if (std::find(finalizers.begin(), finalizers.end(), kubevirt::migration_finalizer) == finalizers.end())
      finalizers.push_back(kubevirt::migration_finalizer);
    return std::nullopt;
  };
}

} // namespace schedopt::sim
