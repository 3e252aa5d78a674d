// KubeVirt's answer to the eviction of a virt-launcher pod (virt-api's pod-eviction
// admitter): mark the VMI for evacuation and refuse, refuse, or let the eviction go.
#pragma once

#include <string>

#include "sim/kubevirt_cr_settings.hpp"

namespace schedopt::sim {

class object_store;

/// The virt-launcher pod of VMI `ns/vmi` on `node` (a pod object's spec.nodeName and
/// kubevirt.io/domain annotation, or, for drains, the VMI's own pod).
struct launcher_pod {
  std::string ns;
  std::string vmi;
  std::string node;
};

struct eviction_answer {
  /// The admission allowed the eviction: the API server deletes the pod.
  bool allowed = false;
  /// The webhook's message when refused (answered to the client as 429 TooManyRequests).
  std::string message;
};

/// kubevirt pkg/virt-api/webhooks/validating-webhook/admitters/pod-eviction-admitter.go
/// Admit, for a pod that exists and is not completed. Marks the VMI
/// (status.evacuationNodeName = pod's node) when its eviction strategy asks for it,
/// unless the eviction is a dry run (markVMI patches with DryRun then).
eviction_answer admit_pod_eviction(object_store& store, const launcher_pod& pod, const kubevirt_cr_settings& cluster,
                                   bool dry_run = false);

} // namespace schedopt::sim
