#include "sim/pvc_protection.hpp"

#include <algorithm>
#include "sim/object_store.hpp"

namespace schedopt::sim {

namespace {
const char* claims_key = "persistentvolumeclaims";
}

bool pvc_protection::in_use(const std::string& ns, const std::string& claim) const {
  // podUsesPVCForDeletion: only a scheduled pod counts, since the kubelet will not start
  // a pod whose claim is being deleted.
  for (const auto& item : store_.list_stored("pods", ns).items) {
    auto pod = item->parsed();
    if (pod->value("/spec/nodeName"_json_pointer, std::string{}).empty())
      continue;
    for (const auto& volume : pod->value("/spec/volumes"_json_pointer, json::array()))
      if (volume.value("/persistentVolumeClaim/claimName"_json_pointer, std::string{}) == claim)
        return true;
  }
  return false;
}

void pvc_protection::tick() {
  for (const auto& item : store_.list_stored(claims_key).items) {
    auto claim = item->parsed();
    if (!claim->contains("/metadata/deletionTimestamp"_json_pointer))
      continue;
    auto finalizers = claim->value("/metadata/finalizers"_json_pointer, json::array());
    if (std::find(finalizers.begin(), finalizers.end(), json(pvc_protection_finalizer)) == finalizers.end())
      continue;
    auto ns = claim->value("/metadata/namespace"_json_pointer, std::string{});
    auto name = claim->value("/metadata/name"_json_pointer, std::string{});
    if (in_use(ns, name))
      continue;
    // removeFinalizer; the store deletes the claim once no finalizer is left.
    store_.modify(claims_key, ns, name, [](json& c) {
      auto& list = c["metadata"]["finalizers"];
      list.erase(std::remove(list.begin(), list.end(), json(pvc_protection_finalizer)), list.end());
      return true;
    });
  }
}

} // namespace schedopt::sim
