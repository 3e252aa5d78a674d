// kubectl's drain (k8s.io/kubectl/pkg/drain: cordon.go, drain.go) with the cluster's
// side of it: kube-controller-manager's node lifecycle controller taints the cordoned
// node, and virt-api's pod-eviction admitter answers each eviction. The simulator has no
// pod objects: a virt-launcher pod is its VMI's (source) or a migration's (target).
#include "sim/node_drain.hpp"

#include <map>
#include <mutex>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "sim/json_fields.hpp"
#include "sim/kubevirt_names.hpp"
#include "sim/object_store.hpp"
#include "sim/tick_thread.hpp"
#include "sim/pod_eviction_admitter.hpp"
#include "sim/vmi_usage_index.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;
using clock_type = std::chrono::system_clock;
namespace kv = kubevirt;

constexpr const char* unschedulable_taint = "node.kubernetes.io/unschedulable"; // v1.TaintNodeUnschedulable

/// One pod kubectl drain listed (GetPodsForDeletion runs once, at the start).
struct listed_pod {
  launcher_pod pod;
  std::string migration_uid; // a migration's target pod; empty for the VMI's own pod
  clock_type::time_point next_try;
  bool gone = false;
};

struct node_state {
  std::vector<listed_pod> pods;
  bool reported = false;
};

} // namespace

struct node_drain::impl {
  object_store& store;
  node_drain_options options;
  std::shared_ptr<vmi_usage_index> vmis = std::make_shared<vmi_usage_index>();
  mutable std::mutex mutex; // drains; tick and drain() may run on different threads
  std::map<std::string, node_state> drains;

  tick_thread ticker;

  impl(object_store& s, node_drain_options o) : store(s), options(std::move(o)) { vmis->attach(store); }

  expected<bool> drain(const std::string& node, clock_type::time_point now) {
    std::lock_guard<std::mutex> guard{mutex};
    if (drains.count(node))
      return true;
    // cordon.go CordonHelper.PatchOrReplace: spec.unschedulable=true.
    auto cordoned = store.modify("nodes", "", node, [](json& n) {
      n["spec"]["unschedulable"] = true;
      return true;
    });
    if (!cordoned)
      return cordoned.err();
    spdlog::info("drain: node/{} cordoned", node);
    // node_lifecycle_controller.go doNoScheduleTaintingPass: a node with
    // spec.unschedulable gets UnschedulableTaintTemplate (NoSchedule, no timeAdded).
    if (options.taint_cordoned)
      store.modify("nodes", "", node, [](json& n) {
        auto& taints = n["spec"]["taints"];
        if (!taints.is_array())
          taints = json::array();
        for (const auto& t : taints)
          if (t.value("key", "") == unschedulable_taint && t.value("effect", "") == "NoSchedule")
            return false;
        taints.push_back({{"key", unschedulable_taint}, {"effect", "NoSchedule"}});
        return true;
      });
    auto& state = drains[node];
    vmis->for_each([&](const std::string& key, const vmi_usage& v) {
      if (v.node != node || v.phase == "Succeeded" || v.phase == "Failed")
        return;
      auto slash = key.find('/');
      state.pods.push_back({{key.substr(0, slash), key.substr(slash + 1), node}, {}, now, false});
    });
    // Target pods of migrations heading here, scheduled before the cordon.
    for (const auto& stored : store.list_stored(kv::vmim_key).items) {
      auto m = stored->parsed();
      auto phase = text_at(*m, "/status/phase"_json_pointer);
      if (phase == kv::phase_succeeded || phase == kv::phase_failed
          || text_at(*m, "/status/migrationState/targetNode"_json_pointer) != node)
        continue;
      state.pods.push_back({{text_at(*m, "/metadata/namespace"_json_pointer), text_at(*m, "/spec/vmiName"_json_pointer), node},
                            text_at(*m, "/metadata/uid"_json_pointer), now, false});
    }
    spdlog::info("drain: node/{}: evicting {} virt-launcher pod(s)", node, state.pods.size());
    return true;
  }

  /// Whether the pod still exists, as a Get of it would answer.
  bool exists(const listed_pod& p) {
    auto vmi = store.get(kv::vmi_key, p.pod.ns, p.pod.vmi);
    if (!vmi)
      return false;
    auto phase = text_at(*vmi, "/status/phase"_json_pointer);
    bool final = phase == "Succeeded" || phase == "Failed";
    auto node = text_at(*vmi, "/status/nodeName"_json_pointer);
    if (p.migration_uid.empty())
      return !final && node == p.pod.node; // the source pod goes once the VMI has moved
    auto state = vmi->value("/status/migrationState"_json_pointer, json::object());
    if (!state.is_object() || state.value("migrationUid", std::string{}) != p.migration_uid)
      return false;
    if (!state.value("completed", false))
      return true;
    return !state.value("failed", false) && node == p.pod.node && !final; // now the VMI's own pod
  }

  /// The pod is deleted. For the VMI's own pod, virt-controller's VMI lifecycle
  /// (watch/vmi/lifecycle.go updateStatus, `case vmi.IsRunning(): if !vmiPodExists`) fails
  /// the VMI; grace periods are not simulated.
  void evicted(const listed_pod& p) {
    spdlog::info("drain: pod/virt-launcher-{} -n {} evicted", p.pod.vmi, p.pod.ns);
    auto type = store.find_type(kv::vmi_key);
    store.modify(
      kv::vmi_key, p.pod.ns, p.pod.vmi,
      [&](json& vmi) {
        if (text_at(vmi, "/status/nodeName"_json_pointer) != p.pod.node
            || text_at(vmi, "/status/phase"_json_pointer) != "Running")
          return false;
        vmi["status"]["phase"] = "Failed";
        return true;
      },
      type && type->status_subresource);
  }

  void tick(clock_type::time_point now) {
    std::lock_guard<std::mutex> guard{mutex};
    if (drains.empty())
      return;
    auto cluster = read_kubevirt_cr_settings(store, options.fallback);
    for (auto& [node, state] : drains) {
      if (state.reported)
        continue;
      bool all_gone = true;
      for (auto& p : state.pods) {
        if (p.gone)
          continue;
        if (now < p.next_try) {
          all_gone = false;
          continue;
        }
        // drain.go evictPods: a pod not found is done; a refusal is retried.
        if (!exists(p)) {
          p.gone = true;
          continue;
        }
        auto answer = admit_pod_eviction(store, p.pod, cluster);
        if (answer.allowed) {
          evicted(p);
          p.gone = true;
          continue;
        }
        spdlog::info("drain: error when evicting pods/\"virt-launcher-{}\" -n \"{}\" (will retry after {}ms): {}",
                     p.pod.vmi, p.pod.ns, options.eviction_retry.count(), answer.message);
        p.next_try = now + options.eviction_retry;
        all_gone = false;
      }
      if (all_gone) {
        state.reported = true;
        spdlog::info("drain: node/{} drained", node);
      }
    }
  }

};

node_drain::node_drain(object_store& store, node_drain_options options)
  : impl_(std::make_unique<impl>(store, std::move(options))) {}

node_drain::~node_drain() {
  stop();
}

expected<bool> node_drain::drain(const std::string& node, std::chrono::system_clock::time_point now) {
  return impl_->drain(node, now);
}

bool node_drain::drained(const std::string& node) const {
  std::lock_guard<std::mutex> guard{impl_->mutex};
  auto it = impl_->drains.find(node);
  return it != impl_->drains.end() && it->second.reported;
}

void node_drain::start() {
  impl_->ticker.start(impl_->options.tick_interval, [this](clock_type::time_point now) { impl_->tick(now); });
}

void node_drain::stop() {
  if (impl_)
    impl_->ticker.stop();
}

void node_drain::tick(std::chrono::system_clock::time_point now) {
  impl_->tick(now);
}

} // namespace schedopt::sim
