// KubeVirt's side of its pods, after kubevirt pkg/virt-controller/watch/vmi/vmi.go
// (the launcher pod created for a VMI, the VMI failed when its pod disappears: lifecycle.go
// updateStatus "case vmi.IsRunning(): if !vmiPodExists") and the migration controller's
// target pod that becomes the VMI's pod when it moves (the source pod completes once the
// domain left it). Pods are written Running at once: their startup is the VMI's, which
// the scenario and the migration controller already time.
#include "sim/launcher_pods.hpp"

#include <atomic>
#include <map>
#include <vector>

#include <spdlog/spdlog.h>

#include "model/timestamp.hpp"
#include "sim/audit_log.hpp"
#include "sim/kubelet.hpp"
#include "sim/kubevirt_names.hpp"
#include "sim/object_store.hpp"
#include "sim/pod_facts.hpp"
#include "sim/pod_templates.hpp"
#include "sim/vmi_usage_index.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

struct launcher_dirty {
  std::atomic<bool> set{true};
};

namespace {

constexpr const char* virt_controller_name = "virt-controller";

std::string node_ip(object_store& store, const std::string& node) {
  auto n = store.get("nodes", "", node);
  if (!n)
    return {};
  for (const auto& a : n->value("/status/addresses"_json_pointer, json::array()))
    if (a.value("type", "") == "InternalIP")
      return a.value("address", std::string{});
  return {};
}

} // namespace

json launcher_pod_for(const json& vmi, const std::string& node) {
  auto name = name_of(vmi);
  auto requests = requests_of(vmi);
  json volumes = json::array();
  for (const auto& v : vmi.value("/spec/volumes"_json_pointer, json::array())) {
    auto claim = text_at(v, "/persistentVolumeClaim/claimName"_json_pointer);
    if (claim.empty())
      claim = text_at(v, "/dataVolume/name"_json_pointer);
    if (!claim.empty())
      volumes.push_back({{"name", v.value("name", claim)}, {"persistentVolumeClaim", {{"claimName", claim}}}});
  }
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"generateName", "virt-launcher-" + name + "-"},
                {"namespace", namespace_of(vmi)},
                {"labels",
                 {{kubevirt_app_label, virt_launcher_app},
                  {"kubevirt.io/created-by", uid_of(vmi)},
                  {"vm.kubevirt.io/name", name}}},
                {"annotations",
                 {{kubevirt_domain_annotation, name}, {"kubectl.kubernetes.io/default-container", "compute"}}},
                {"ownerReferences",
                 json::array({{{"apiVersion", "kubevirt.io/v1"},
                               {"kind", "VirtualMachineInstance"},
                               {"name", name},
                               {"uid", uid_of(vmi)},
                               {"controller", true},
                               {"blockOwnerDeletion", true}}})}}},
              {"spec",
               {{"nodeName", node},
                {"restartPolicy", "Never"},
                {"terminationGracePeriodSeconds", vmi.value("/spec/terminationGracePeriodSeconds"_json_pointer, 180) + 30},
                {"containers",
                 json::array({{{"name", "compute"},
                               {"image", "quay.io/kubevirt/virt-launcher:v1.6.0"},
                               {"resources",
                                {{"requests",
                                  {{"cpu", std::to_string(requests.cpu_millis) + "m"},
                                   {"memory", std::to_string(requests.memory_bytes)}}}}}}})},
                {"volumes", volumes}}}};
  default_new_pod(pod);
  return pod;
}

launcher_pods::launcher_pods(object_store& store, bool kubelet_status)
  : store_(store), vmis_(std::make_shared<vmi_usage_index>()), flag_(std::make_shared<launcher_dirty>()),
    kubelet_status_(kubelet_status) {
  vmis_->attach(store_);
  for (const char* key : {kubevirt::vmi_key, pods_key})
    store_.add_observer(key, [flag = flag_](const object_store::change&) { flag->set.store(true); });
}

launcher_pods::~launcher_pods() = default;

void launcher_pods::tick(std::chrono::system_clock::time_point now) {
  if (now < next_pass_ || !flag_->set.exchange(false))
    return;
  next_pass_ = now + pass_interval;
  component_identity_scope as{virt_controller_name};
  auto stamp = format_rfc3339(now);
  // The launcher pods that run, by VMI ("ns/name").
  std::map<std::string, std::vector<std::shared_ptr<const json>>> pods_of;
  for (const auto& stored : store_.list_stored(pods_key).items) {
    auto pod = stored->parsed();
    if (!is_virt_launcher(*pod) || is_pod_terminal(*pod))
      continue;
    auto vmi = text_at(*pod, json::json_pointer{"/metadata/annotations/kubevirt.io~1domain"});
    pods_of[namespace_of(*pod) + "/" + vmi].push_back(pod);
  }
  std::map<std::string, vmi_usage> vmis;
  vmis_->for_each([&](const std::string& key, const vmi_usage& v) { vmis[key] = v; });

  // Pods whose VMI left them complete (the domain is gone from that node).
  for (const auto& [key, pods] : pods_of) {
    auto vmi = vmis.find(key);
    for (const auto& pod : pods) {
      auto node = text_at(*pod, "/spec/nodeName"_json_pointer);
      bool current = vmi != vmis.end() && vmi->second.phase == "Running" && vmi->second.node == node;
      if (current || is_terminating(*pod))
        continue;
      store_.modify(
        pods_key, namespace_of(*pod), name_of(*pod),
        [&](json& p) {
          p["status"]["phase"] = "Succeeded";
          set_pod_condition(p, "Ready", "False", stamp, "PodCompleted");
          set_pod_condition(p, "ContainersReady", "False", stamp, "PodCompleted");
          return true;
        },
        true);
    }
  }
  // Running VMIs without their pod: one that had it lost it (the VMI fails); any other
  // gets one (a new VMI, or one that moved).
  for (const auto& [key, v] : vmis) {
    if (v.phase != "Running" || v.node.empty())
      continue;
    auto slash = key.find('/');
    auto ns = key.substr(0, slash), name = key.substr(slash + 1);
    auto seen = key + "@" + v.node;
    // A pod still terminating there is present: KubeVirt makes no second one.
    bool present = false;
    if (auto it = pods_of.find(key); it != pods_of.end())
      for (const auto& pod : it->second)
        if (text_at(*pod, "/spec/nodeName"_json_pointer) == v.node)
          present = true;
    if (present) {
      had_pod_.insert(seen);
      continue;
    }
    if (had_pod_.count(seen)) {
      had_pod_.erase(seen);
      auto type = store_.find_type(kubevirt::vmi_key);
      store_.modify(
        kubevirt::vmi_key, ns, name,
        [&](json& vmi) {
          if (text_at(vmi, "/status/nodeName"_json_pointer) != v.node || text_at(vmi, "/status/phase"_json_pointer) != "Running")
            return false;
          vmi["status"]["phase"] = "Failed";
          return true;
        },
        type && type->status_subresource);
      continue;
    }
    auto vmi = store_.get(kubevirt::vmi_key, ns, name);
    if (!vmi)
      continue;
    auto made = store_.create(pods_key, launcher_pod_for(*vmi, v.node));
    if (!made) {
      spdlog::warn("{}: virt-launcher pod of {}: {}", virt_controller_name, key, made.err().message);
      continue;
    }
    had_pod_.insert(seen);
    if (!kubelet_status_)
      continue;
    auto ip = node_ip(store_, v.node);
    store_.modify(pods_key, ns, name_of(*made), [&](json& p) {
      report_pod_started(p, ip, stamp);
      return true;
    }, true);
  }
}

} // namespace schedopt::sim
