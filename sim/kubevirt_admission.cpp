// Messages are KubeVirt's (pkg/virt-api/webhooks/validating-webhook/admitters/
// migration-create-admitter.go) as the API server relays them: "admission webhook
// \"<name>\" denied the request: <message>", HTTP 400 (ToAdmissionResponseError) or
// 422 for a spec validation cause.
#include "sim/kubevirt_admission.hpp"

#include "sim/json_fields.hpp"
#include "sim/kubevirt_names.hpp"

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

} // namespace

object_store::admission_hook make_migration_admission(object_store& store) {
  return [&store](json& object) -> std::optional<error> {
    if (!object.is_object())
      return denied("request object is not a JSON object");
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
