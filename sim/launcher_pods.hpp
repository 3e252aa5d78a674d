// KubeVirt's virt-launcher pods as pod objects, for clusters that run pods (--pods): one
// per running VMI on its node, labelled kubevirt.io=virt-launcher, so a client listing
// pods meets them as it would in a real cluster. A migrated VMI gets a new pod on its new
// node and the old one completes; a VMI whose pod is deleted under it fails.
#pragma once

#include <chrono>
#include <memory>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace schedopt::sim {

class object_store;
class vmi_usage_index;
struct launcher_dirty;

/// The virt-launcher pod KubeVirt makes for `vmi` on `node` (kubevirt
/// pkg/virt-controller/services/template.go renderLaunchManifest: generateName
/// virt-launcher-<vmi>-, labels kubevirt.io=virt-launcher and kubevirt.io/created-by,
/// annotation kubevirt.io/domain, the VMI as controller, a compute container asking for
/// the VMI's requests plus virt-launcher's overhead, the VMI's claims as volumes).
nlohmann::json launcher_pod_for(const nlohmann::json& vmi, const std::string& node);

class launcher_pods {
public:
  /// Observes VMIs and pods of `store` from now on. `kubelet_status`: the pods it makes
  /// are reported running as a kubelet reports them; false where real kubelets (kwok) do.
  explicit launcher_pods(object_store& store, bool kubelet_status = true);
  ~launcher_pods();

  /// Brings the launcher pods in line with the VMIs when either changed, at most every
  /// `pass_interval` (a full pass reads every VMI).
  void tick(std::chrono::system_clock::time_point now);

  static constexpr std::chrono::milliseconds pass_interval{250};

private:
  object_store& store_;
  std::shared_ptr<vmi_usage_index> vmis_;
  std::shared_ptr<launcher_dirty> flag_;
  std::chrono::system_clock::time_point next_pass_{};
  /// VMIs ("ns/name@node") whose pod on that node this component has seen running.
  std::set<std::string> had_pod_;
  bool kubelet_status_;
};

} // namespace schedopt::sim
