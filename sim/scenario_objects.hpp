// JSON builders for the objects a scenario creates, shaped like what a real cluster
// (Kubernetes 1.30, KubeVirt 1.x, CDI, Portworx CSI) returns for them.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/error.hpp"

namespace schedopt::sim {

struct vmi_volume_plan {
  std::string name;       // volume name in the VMI spec
  std::string claim;      // PVC name (= DataVolume name)
  bool data_volume = false;
  bool driver_owned = true; // false: a volume of some other CSI driver
};

struct vmi_plan {
  std::string name;
  std::string namespace_;
  std::string node;
  bool owned_by_vm = false;
  bool live_migratable = true;
  std::vector<vmi_volume_plan> volumes;
  std::string memory = "4Gi"; // guest memory (spec.domain.memory.guest)
  std::string ip; // pod network address
  std::string mac;
  // Scheduling constraints, emitted into the VMI (and VM template) spec when not null.
  nlohmann::json node_selector;
  nlohmann::json affinity;
  nlohmann::json tolerations;
};

/// What every generated VMI requests (spec.domain.resources.requests).
constexpr const char* vmi_memory_request = "4Gi";
constexpr const char* vmi_cpu_request = "100m";

nlohmann::json namespace_object(const std::string& name);
/// The host CPU model every node has unless a scenario names others (--cpu-models).
constexpr const char* default_host_cpu_model = "Cascadelake-Server";
/// `host_cpu_model` empty: a node without virt-handler, so without KubeVirt's labels.
nlohmann::json node_object(const std::string& name, const std::string& ip,
                           const std::string& host_cpu_model = default_host_cpu_model);
nlohmann::json pvc_object(const std::string& ns, const std::string& name, const std::string& pv_name,
                          const std::string& storage_class, const std::string& provisioner,
                          bool data_volume, bool shared);
nlohmann::json pv_object(const std::string& pv_name, const nlohmann::json& pvc, const std::string& driver,
                         const std::string& volume_handle, const std::string& storage_class,
                         const std::vector<std::string>& affinity_nodes);
/// `pvc`'s uid and resourceVersion as `pv`'s claimRef (pv_object() writes what `pvc`
/// has; a PV planned before its claim was created is bound again once it is).
void bind_claim(nlohmann::json& pv, const nlohmann::json& pvc);
nlohmann::json vm_object(const vmi_plan& plan);
/// `vm_uid` empty for a standalone VMI (or one whose VM is not created yet: own_by_vm()).
nlohmann::json vmi_object(const vmi_plan& plan, const std::string& vm_uid, const std::string& now);
/// The VM's ownerReference and revision name on `vmi`.
void own_by_vm(nlohmann::json& vmi, const std::string& vm_uid);

/// The csi-topology PV's node affinity for `nodes`.
nlohmann::json topology_node_affinity(const std::vector<std::string>& nodes);

/// KubeVirt's LiveMigratable=False message for a PVC that is not shared.
std::string not_shared_message(const std::string& claim);

/// Whether a scenario object was stored; a refusal is logged with `what` and the
/// scenario goes on without it.
bool created(const char* what, const expected<nlohmann::json>& made);

} // namespace schedopt::sim
