// What moves pods in a real control plane that the control plane does not run
// (schedopt-sim attach --pods): KubeVirt's virt-launcher pods, one per running VMI on its
// node, so kube-scheduler counts what the VMs use as it would in a KubeVirt cluster; and
// Stork's scheduler, binding the pods naming `stork` through pods/binding as any second
// scheduler does, with Stork's storage-aware scoring (sim/pod_placement), a scenario's
// pods first where it planned them, a misplaced share included. kube-scheduler binds the
// rest; the kubelets (kwok) run them.
#pragma once

#include <memory>

#include "sim/scenario.hpp"

namespace schedopt::sim {

class object_store;
class storage_backend;

class attached_pods {
public:
  /// `store` mirrors the API server (object_store::mirror_upstream).
  attached_pods(object_store& store, const storage_backend& storage, first_placements planned);
  ~attached_pods();

  void start();
  void stop();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
