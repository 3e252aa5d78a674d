// Follows kubernetes pkg/controller/replicaset/replica_set.go syncReplicaSet and
// manageReplicas (active pods counted with controller.FilterActivePods, the shortfall
// created from the template with generateName "<set>-", the excess deleted in
// getPodsToDelete's order), replica_set_utils.go calculateStatus, and the events of
// pkg/controller/controller_utils.go RealPodControl ("Created pod: ...", "Deleted pod:
// ..."). Pods are matched to their set by controller reference (no adoption).
#include "sim/replicaset_controller.hpp"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "sim/audit_log.hpp"
#include "sim/event_recorder.hpp"
#include "sim/object_store.hpp"
#include "sim/pod_deletion.hpp"
#include "sim/pod_facts.hpp"
#include "sim/pod_templates.hpp"
#include "sim/selectors.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

constexpr const char* replicaset_controller_name = "replicaset-controller";

using pod_ptr = std::shared_ptr<const json>;

/// controller_utils.go FilterActivePods / IsPodActive.
bool is_active(const json& pod) {
  return !is_pod_terminal(pod) && !is_terminating(pod);
}

/// controller.ActivePods Less, its first rules: unassigned before assigned, Pending
/// before Running, not ready before ready, then the newer pod first.
bool delete_first(const pod_ptr& a, const pod_ptr& b) {
  auto assigned = [](const json& p) { return !text_at(p, "/spec/nodeName"_json_pointer).empty(); };
  if (assigned(*a) != assigned(*b))
    return !assigned(*a);
  auto rank = [](const json& p) {
    auto phase = pod_phase(p);
    return phase == "Pending" ? 0 : phase == "Running" ? 2 : 1;
  };
  if (rank(*a) != rank(*b))
    return rank(*a) < rank(*b);
  if (is_pod_ready(*a) != is_pod_ready(*b))
    return !is_pod_ready(*a);
  return text_at(*a, "/metadata/creationTimestamp"_json_pointer) > text_at(*b, "/metadata/creationTimestamp"_json_pointer);
}

} // namespace

replicaset_controller::replicaset_controller(object_store& store, std::chrono::milliseconds recreate_delay)
  : store_(store), create_delay_(recreate_delay) {}

void replicaset_controller::tick(std::chrono::system_clock::time_point now) {
  auto sets = store_.list_stored(replicasets_key).items;
  if (sets.empty())
    return;
  component_identity_scope as{replicaset_controller_name};
  std::unordered_map<std::string, std::vector<pod_ptr>> owned; // set uid -> pods
  for (const auto& stored : store_.list_stored(pods_key).items) {
    auto pod = stored->parsed();
    auto ref = controller_of(*pod);
    if (ref.is_object() && ref.value("kind", "") == "ReplicaSet")
      owned[ref.value("uid", "")].push_back(pod);
  }
  for (const auto& stored : sets) {
    auto set = stored->parsed();
    auto ns = namespace_of(*set);
    auto name = name_of(*set);
    auto replicas = set->value("/spec/replicas"_json_pointer, 1);
    std::vector<pod_ptr> active;
    for (const auto& pod : owned[uid_of(*set)])
      if (is_active(*pod))
        active.push_back(pod);
    auto selector = label_selector::from_object(set->value("/spec/selector"_json_pointer, json::object()));
    json template_labels = set->value("/spec/template/metadata/labels"_json_pointer, json::object());
    int labelled = 0, ready = 0;
    for (const auto& pod : active) {
      // calculateStatus: fully labelled = carries every label of the template.
      bool full = true;
      auto labels = pod->value("/metadata/labels"_json_pointer, json::object());
      for (const auto& [k, v] : template_labels.items())
        if (!labels.contains(k) || labels[k] != v)
          full = false;
      labelled += full ? 1 : 0;
      ready += is_pod_ready(*pod) ? 1 : 0;
    }
    json status = {{"replicas", active.size()},
                   {"fullyLabeledReplicas", labelled},
                   {"readyReplicas", ready},
                   {"availableReplicas", ready},
                   {"observedGeneration", set->value("/metadata/generation"_json_pointer, 1)}};
    store_.modify(
      replicasets_key, ns, name,
      [&](json& s) {
        if (s.value("status", json::object()) == status)
          return false;
        s["status"] = status;
        return true;
      },
      true);
    if (is_terminating(*set) || !selector)
      continue;
    auto diff = static_cast<int>(active.size()) - replicas;
    auto key = ns + "/" + name;
    if (diff < 0) {
      if (!create_delay_.due(key, now))
        continue;
      create_delay_.done(key);
      for (int i = 0; i < -diff; ++i) {
        auto made = store_.create(pods_key, pod_from_template(*set, {}, name + "-"));
        if (made)
          record_event(store_, object_reference(*set), "Normal", "SuccessfulCreate",
                       "Created pod: " + name_of(*made), replicaset_controller_name);
        else
          record_event(store_, object_reference(*set), "Warning", "FailedCreate",
                       "Error creating: " + made.err().message, replicaset_controller_name);
      }
    } else if (diff > 0) {
      std::sort(active.begin(), active.end(), delete_first);
      for (int i = 0; i < diff; ++i) {
        auto pod_name = name_of(*active[static_cast<std::size_t>(i)]);
        if (delete_pod(store_, ns, pod_name, json::object()))
          record_event(store_, object_reference(*set), "Normal", "SuccessfulDelete", "Deleted pod: " + pod_name,
                       replicaset_controller_name);
      }
    }
  }
  create_delay_.sweep();
}

} // namespace schedopt::sim
