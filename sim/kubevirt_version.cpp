#include "sim/kubevirt_version.hpp"

#include <vector>

namespace schedopt::sim {

expected<kubevirt_version> parse_kubevirt_version(const std::string& text) {
  for (int minor = 3; minor <= 9; ++minor)
    if (text == "1." + std::to_string(minor))
      return kubevirt_version{minor};
  return make_error(ec::config_error, "invalid KubeVirt version \"" + text
                                        + "\": expected 1.3, 1.4, 1.5, 1.6, 1.7, 1.8 or 1.9");
}

void shape_vmim_crd(nlohmann::json& crd, kubevirt_version v) {
  if (crd.value("/spec/names/plural"_json_pointer, std::string{}) != "virtualmachineinstancemigrations")
    return;
  // v1.7.0 adds priority (types.go MigrationPriority, validations_generated.go).
  std::vector<const char*> absent;
  if (!v.has_migration_priority())
    absent.push_back("priority");
  if (!v.has_added_node_selector())
    for (auto* field : {"addedNodeSelector", "sendTo", "receive"})
      absent.push_back(field);
  // kubevirt staging/src/kubevirt.io/api/core/v1/types.go VirtualMachineInstanceMigrationSpec:
  // v1.5.0 has vmiName only; v1.6.0 adds addedNodeSelector, sendTo and receive. The
  // operator's CRD (pkg/virt-operator/resource/generate/components/validations_generated.go)
  // is generated from it, so before 1.6 those properties are not in the schema and
  // apiextensions-apiserver's pruning (pkg/apiserver/schema/pruning/algorithm.go Prune)
  // drops them on every write.
  for (auto& version : crd["spec"]["versions"]) {
    auto* spec = &version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
    if (!spec->is_object())
      continue;
    for (auto* field : absent)
      spec->erase(field);
  }
}

} // namespace schedopt::sim
