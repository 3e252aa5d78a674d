// kube-controller-manager's PVC protection controller for the simulated cluster: a claim
// being deleted keeps its kubernetes.io/pvc-protection finalizer (added on create, as
// kube-apiserver's StorageObjectInUseProtection admission does) while a scheduled pod
// names it, and loses it, and so goes, once none does (kubernetes
// pkg/controller/volume/pvcprotection/pvc_protection_controller.go, processPVC).
#pragma once

#include <string>

namespace schedopt::sim {

class object_store;

inline constexpr const char* pvc_protection_finalizer = "kubernetes.io/pvc-protection";

class pvc_protection {
public:
  explicit pvc_protection(object_store& store) : store_(store) {}

  /// Releases every claim being deleted that no scheduled pod uses.
  void tick();

private:
  bool in_use(const std::string& ns, const std::string& claim) const;
  object_store& store_;
};

} // namespace schedopt::sim
