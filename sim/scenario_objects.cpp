// Object shapes follow `kubectl get -o json` output of a KubeVirt cluster on Portworx;
// fields nobody reads are kept to a plausible handful so lists stay realistic in size.
#include "sim/scenario_objects.hpp"

#include <spdlog/spdlog.h>

#include <cstdint>

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

json volume_source(const vmi_volume_plan& v) {
  json vol = {{"name", v.name}};
  if (v.data_volume)
    vol["dataVolume"] = {{"name", v.claim}};
  else
    vol["persistentVolumeClaim"] = {{"claimName", v.claim}};
  return vol;
}

json vmi_spec(const vmi_plan& plan) {
  json disks = json::array();
  json volumes = json::array();
  for (const auto& v : plan.volumes) {
    disks.push_back({{"name", v.name}, {"disk", {{"bus", "virtio"}}}});
    volumes.push_back(volume_source(v));
  }
  disks.push_back({{"name", "cloudinitdisk"}, {"disk", {{"bus", "virtio"}}}});
  volumes.push_back({{"name", "cloudinitdisk"},
                     {"cloudInitNoCloud", {{"userData", "#cloud-config\nuser: fedora\npassword: fedora\n"}}}});
  json spec = {{"architecture", "amd64"},
          {"domain",
           {{"cpu", {{"cores", 1}, {"sockets", 2}, {"threads", 1}, {"model", "host-model"}, {"maxSockets", 8}}},
            {"memory", {{"guest", plan.memory}}},
            {"devices",
             {{"disks", disks},
              {"interfaces", json::array({{{"name", "default"}, {"masquerade", json::object()}}})},
              {"rng", json::object()}}},
            {"features", {{"acpi", {{"enabled", true}}}}},
            {"firmware", {{"uuid", "5d307ca9-b3ef-428c-8861-06e72d69f223"}}},
            {"machine", {{"type", "pc-q35-rhel9.4.0"}}},
            {"resources", {{"requests", {{"cpu", vmi_cpu_request}, {"memory", vmi_memory_request}}}}}}},
          {"evictionStrategy", "LiveMigrate"},
          {"networks", json::array({{{"name", "default"}, {"pod", json::object()}}})},
          {"terminationGracePeriodSeconds", 180},
          {"volumes", volumes}};
  if (!plan.node_selector.is_null())
    spec["nodeSelector"] = plan.node_selector;
  if (!plan.affinity.is_null())
    spec["affinity"] = plan.affinity;
  if (!plan.tolerations.is_null())
    spec["tolerations"] = plan.tolerations;
  return spec;
}

/// 16 hex digits derived from a node name (FNV-1a with a salt), so a seed's nodes keep
/// their machine ids from run to run as real nodes do.
std::string node_hex(const std::string& name, unsigned salt) {
  uint64_t h = 1469598103934665603ULL ^ (salt * 0x9e3779b97f4a7c15ULL);
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  static const char digits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4)
    out[static_cast<std::size_t>(i)] = digits[h & 15];
  return out;
}

std::string node_uuid(const std::string& name, unsigned salt) {
  auto hex = node_hex(name, salt * 2) + node_hex(name, salt * 2 + 1);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4)
         + "-" + hex.substr(20, 12);
}

} // namespace

json namespace_object(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Namespace"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/metadata.name", name}}}}},
          {"spec", {{"finalizers", json::array({"kubernetes"})}}},
          {"status", {{"phase", "Active"}}}};
}

json node_object(const std::string& name, const std::string& ip, const std::string& host_cpu_model) {
  auto cond = [](const char* type, const char* status, const char* reason, const char* message) {
    return json{{"type", type},
                {"status", status},
                {"reason", reason},
                {"message", message},
                {"lastHeartbeatTime", "2026-01-01T00:00:00Z"},
                {"lastTransitionTime", "2026-01-01T00:00:00Z"}};
  };
  json labels = {{"beta.kubernetes.io/arch", "amd64"},
                 {"beta.kubernetes.io/os", "linux"},
                 {"kubernetes.io/arch", "amd64"},
                 {"kubernetes.io/hostname", name},
                 {"kubernetes.io/os", "linux"},
                 {"node-role.kubernetes.io/worker", ""},
                 {"px/enabled", "true"}};
  if (!host_cpu_model.empty()) {
    // virt-handler marks its node schedulable (pkg/virt-handler heartbeat), and its node
    // labeller (node-labeller/node_labeller.go prepareLabels) writes the host CPU model,
    // which a host-model VMI started here needs on its migration target
    // (host-model-cpu.node.kubevirt.io/), the models a migration may bring here
    // (cpu-model-migration.node.kubevirt.io/) and the named models it runs
    // (cpu-model.node.kubevirt.io/). A real host also lists the older named models its
    // CPU can run; a simulated node lists its own model only.
    labels["kubevirt.io/schedulable"] = "true";
    labels["host-model-cpu.node.kubevirt.io/" + host_cpu_model] = "true";
    labels["cpu-model-migration.node.kubevirt.io/" + host_cpu_model] = "true";
    labels["cpu-model.node.kubevirt.io/" + host_cpu_model] = "true";
  }
  json capacity = {{"cpu", "32"}, {"memory", "131898060Ki"}, {"pods", "250"}, {"devices.kubevirt.io/kvm", "1k"}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"labels", labels},
            {"annotations", {{"node.alpha.kubernetes.io/ttl", "0"},
                             {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}}}}},
          {"spec", {{"podCIDR", "10.244.0.0/24"}}},
          {"status",
           {{"addresses", json::array({{{"type", "InternalIP"}, {"address", ip}}, {{"type", "Hostname"}, {"address", name}}})},
            {"allocatable", capacity},
            {"capacity", capacity},
            {"conditions",
             json::array({cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                          cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                          cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                          cond("Ready", "True", "KubeletReady", "kubelet is posting ready status")})},
            {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
            {"nodeInfo",
             {{"architecture", "amd64"},
              {"bootID", node_uuid(name, 2)},
              {"containerRuntimeVersion", "containerd://1.7.22"},
              {"kernelVersion", "5.14.0-427.40.1.el9_4.x86_64"},
              {"kubeProxyVersion", "v1.30.6"},
              {"kubeletVersion", "v1.30.6"},
              {"machineID", node_hex(name, 0) + node_hex(name, 1)},
              {"operatingSystem", "linux"},
              {"osImage", "Red Hat Enterprise Linux CoreOS 9.4"},
              {"systemUUID", node_uuid(name, 3)}}}}}};
}

json pvc_object(const std::string& ns, const std::string& name, const std::string& pv_name,
                const std::string& storage_class, const std::string& provisioner, bool data_volume,
                bool shared) {
  json access = json::array({shared ? "ReadWriteMany" : "ReadWriteOnce"});
  json meta = {{"name", name},
               {"namespace", ns},
               {"annotations",
                {{"pv.kubernetes.io/bind-completed", "yes"},
                 {"pv.kubernetes.io/bound-by-controller", "yes"},
                 {"volume.beta.kubernetes.io/storage-provisioner", provisioner},
                 {"volume.kubernetes.io/storage-provisioner", provisioner}}},
               {"finalizers", json::array({"kubernetes.io/pvc-protection"})}};
  if (data_volume) {
    meta["labels"] = {{"app", "containerized-data-importer"},
                      {"app.kubernetes.io/component", "storage"},
                      {"app.kubernetes.io/managed-by", "cdi-controller"}};
    meta["annotations"]["cdi.kubevirt.io/storage.pod.phase"] = "Succeeded";
    meta["annotations"]["cdi.kubevirt.io/storage.condition.running"] = "false";
    meta["ownerReferences"] = json::array({{{"apiVersion", "cdi.kubevirt.io/v1beta1"},
                                            {"kind", "DataVolume"},
                                            {"name", name},
                                            {"uid", "00000000-0000-0000-0000-000000000000"},
                                            {"controller", true},
                                            {"blockOwnerDeletion", true}}});
  }
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata", meta},
          {"spec",
           {{"accessModes", access},
            {"resources", {{"requests", {{"storage", "20Gi"}}}}},
            {"storageClassName", storage_class},
            {"volumeMode", "Block"},
            {"volumeName", pv_name}}},
          {"status", {{"phase", "Bound"}, {"accessModes", access}, {"capacity", {{"storage", "20Gi"}}}}}};
}

json topology_node_affinity(const std::vector<std::string>& nodes) {
  json expr = {{"key", "kubernetes.io/hostname"}, {"operator", "In"}, {"values", nodes}};
  return {{"required", {{"nodeSelectorTerms", json::array({{{"matchExpressions", json::array({expr})}}})}}}};
}

json pv_object(const std::string& pv_name, const json& pvc, const std::string& driver,
               const std::string& volume_handle, const std::string& storage_class,
               const std::vector<std::string>& affinity_nodes) {
  const auto& pvc_meta = pvc["metadata"];
  json access = pvc["spec"]["accessModes"];
  json spec = {{"accessModes", access},
               {"capacity", {{"storage", "20Gi"}}},
               {"claimRef",
                {{"apiVersion", "v1"},
                 {"kind", "PersistentVolumeClaim"},
                 {"name", pvc_meta.value("name", "")},
                 {"namespace", pvc_meta.value("namespace", "")},
                 {"uid", ""},
                 {"resourceVersion", ""}}},
               {"csi",
                {{"driver", driver},
                 {"volumeHandle", volume_handle},
                 {"volumeAttributes", {{"repl", std::to_string(affinity_nodes.size())},
                                       {"storage.kubernetes.io/csiProvisionerIdentity", "1733000000000-8081-" + driver}}}}},
               {"persistentVolumeReclaimPolicy", "Delete"},
               {"storageClassName", storage_class},
               {"volumeMode", "Block"}};
  if (!affinity_nodes.empty())
    spec["nodeAffinity"] = topology_node_affinity(affinity_nodes);
  json pv = {{"apiVersion", "v1"},
             {"kind", "PersistentVolume"},
             {"metadata",
              {{"name", pv_name},
               {"annotations", {{"pv.kubernetes.io/provisioned-by", driver},
                                {"volume.kubernetes.io/provisioner-deletion-secret-name", ""},
                                {"volume.kubernetes.io/provisioner-deletion-secret-namespace", ""}}},
               {"finalizers", json::array({"external-provisioner.volume.kubernetes.io/finalizer", "kubernetes.io/pv-protection"})}}},
             {"spec", spec},
             {"status", {{"phase", "Bound"}, {"lastPhaseTransitionTime", "2026-01-01T00:00:00Z"}}}};
  bind_claim(pv, pvc);
  return pv;
}

void bind_claim(json& pv, const json& pvc) {
  const auto& meta = pvc["metadata"];
  auto& ref = pv["spec"]["claimRef"];
  ref["uid"] = meta.value("uid", "");
  ref["resourceVersion"] = meta.value("resourceVersion", "");
}

std::string not_shared_message(const std::string& claim) {
  return "cannot migrate VMI: PVC " + claim +
         " is not shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)";
}

json vm_object(const vmi_plan& plan) {
  json templates = json::array();
  for (const auto& v : plan.volumes) {
    if (!v.data_volume)
      continue;
    templates.push_back({{"metadata", {{"name", v.claim}}},
                         {"spec",
                          {{"source", {{"blank", json::object()}}},
                           {"storage", {{"resources", {{"requests", {{"storage", "20Gi"}}}}}}}}}});
  }
  return {{"apiVersion", "kubevirt.io/v1"},
          {"kind", "VirtualMachine"},
          {"metadata",
           {{"name", plan.name},
            {"namespace", plan.namespace_},
            {"annotations", {{"kubevirt.io/latest-observed-api-version", "v1"},
                             {"kubevirt.io/storage-observed-api-version", "v1"}}}}},
          {"spec",
           {{"runStrategy", "Always"},
            {"dataVolumeTemplates", templates},
            {"template",
             {{"metadata", {{"labels", {{"kubevirt.io/domain", plan.name}, {"kubevirt.io/size", "medium"}}}}},
              {"spec", vmi_spec(plan)}}}}},
          {"status",
           {{"created", true},
            {"ready", true},
            {"printableStatus", "Running"},
            {"runStrategy", "Always"},
            {"desiredGeneration", 1},
            {"observedGeneration", 1},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}, {"lastProbeTime", nullptr},
                                         {"lastTransitionTime", "2026-01-01T00:00:00Z"}}})},
            {"volumeSnapshotStatuses", json::array()}}}};
}

json vmi_object(const vmi_plan& plan, const std::string& vm_uid, const std::string& now) {
  json meta = {{"name", plan.name},
               {"namespace", plan.namespace_},
               {"labels", {{"kubevirt.io/domain", plan.name},
                           {"kubevirt.io/nodeName", plan.node},
                           {"kubevirt.io/size", "medium"}}},
               {"annotations", {{"kubevirt.io/latest-observed-api-version", "v1"},
                                {"kubevirt.io/storage-observed-api-version", "v1"},
                                {"kubevirt.io/vm-generation", "1"}}}};
  json migratable = {{"type", "LiveMigratable"}, {"status", "True"}, {"lastProbeTime", nullptr},
                     {"lastTransitionTime", nullptr}};
  if (!plan.live_migratable) {
    std::string claim;
    for (const auto& v : plan.volumes)
      if (v.driver_owned) {
        claim = v.claim;
        break;
      }
    migratable["status"] = "False";
    migratable["reason"] = "DisksNotLiveMigratable";
    migratable["message"] = not_shared_message(claim);
  }
  json conditions = json::array({{{"type", "Ready"}, {"status", "True"}, {"lastProbeTime", nullptr},
                                  {"lastTransitionTime", now}},
                                 migratable,
                                 {{"type", "StorageLiveMigratable"}, {"status", plan.live_migratable ? "True" : "False"},
                                  {"lastProbeTime", nullptr}, {"lastTransitionTime", nullptr}},
                                 {{"type", "AgentConnected"}, {"status", "True"}, {"lastProbeTime", nullptr},
                                  {"lastTransitionTime", now}}});
  json volume_status = json::array();
  const char* targets[] = {"vda", "vdb", "vdc", "vdd", "vde", "vdf", "vdg", "vdh"};
  std::size_t slot = 0;
  for (const auto& v : plan.volumes) {
    json access = json::array({plan.live_migratable ? "ReadWriteMany" : "ReadWriteOnce"});
    volume_status.push_back({{"name", v.name},
                             {"target", slot < std::size(targets) ? targets[slot] : "vdz"},
                             {"persistentVolumeClaimInfo",
                              {{"claimName", v.claim},
                               {"accessModes", access},
                               {"capacity", {{"storage", "20Gi"}}},
                               {"requests", {{"storage", "20Gi"}}},
                               {"volumeMode", "Block"},
                               {"filesystemOverhead", "0"}}}});
    ++slot;
  }
  volume_status.push_back({{"name", "cloudinitdisk"}, {"target", "vdz"}, {"size", 1048576}});
  json status = {
      {"phase", "Running"},
      {"nodeName", plan.node},
      {"conditions", conditions},
      {"interfaces", json::array({{{"name", "default"},
                                   {"interfaceName", "eth0"},
                                   {"infoSource", "domain, guest-agent"},
                                   {"ipAddress", plan.ip},
                                   {"ipAddresses", json::array({plan.ip})},
                                   {"mac", plan.mac},
                                   {"queueCount", 1}}})},
      {"volumeStatus", volume_status},
      {"migrationMethod", plan.live_migratable ? "LiveMigration" : "BlockMigration"},
      {"migrationTransport", "Unix"},
      {"activePods", {{"00000000-0000-0000-0000-000000000000", plan.node}}},
      {"guestOSInfo", {{"id", "fedora"}, {"name", "Fedora Linux"}, {"version", "40"}}},
      {"launcherContainerImageVersion", "quay.io/kubevirt/virt-launcher:v1.3.1"},
      {"machine", {{"type", "pc-q35-rhel9.4.0"}}},
      {"qosClass", "Burstable"},
      {"runtimeUser", 107},
      {"selinuxContext", "none"},
      {"currentCPUTopology", {{"cores", 1}, {"sockets", 2}, {"threads", 1}}},
      {"memory", {{"guestAtBoot", plan.memory}, {"guestCurrent", plan.memory}, {"guestRequested", plan.memory}}}};
  json vmi = {{"apiVersion", "kubevirt.io/v1"},
              {"kind", "VirtualMachineInstance"},
              {"metadata", meta},
              {"spec", vmi_spec(plan)},
              {"status", status}};
  if (!vm_uid.empty())
    own_by_vm(vmi, vm_uid);
  return vmi;
}

void own_by_vm(json& vmi, const std::string& vm_uid) {
  auto& meta = vmi["metadata"];
  meta["ownerReferences"] = json::array({{{"apiVersion", "kubevirt.io/v1"},
                                          {"kind", "VirtualMachine"},
                                          {"name", meta.value("name", "")},
                                          {"uid", vm_uid},
                                          {"controller", true},
                                          {"blockOwnerDeletion", true}}});
  vmi["status"]["virtualMachineRevisionName"] = "revision-start-vm-" + vm_uid + "-1";
}

bool created(const char* what, const expected<json>& made) {
  if (!made)
    spdlog::warn("scenario: creating {} failed: {}", what, made.err().message);
  return made.has_value();
}

} // namespace schedopt::sim
