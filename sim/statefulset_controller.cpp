// Follows kubernetes pkg/controller/statefulset: stateful_set_control.go updateStatefulSet
// (ordinals, monotonic creation, failed pods recreated, status counts), stateful_set_utils.go
// newVersionedStatefulSetPod / updateIdentity / updateStorage / getPersistentVolumeClaimName,
// stateful_pod_control.go CreateStatefulPod (claims first) and its event messages. Pods are
// matched to their set by controller reference (adoption of orphans is not simulated), and
// one ControllerRevision name stands for the template (no rolling updates).
#include "sim/statefulset_controller.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
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

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

constexpr const char* statefulset_controller_name = "statefulset-controller";

using pod_ptr = std::shared_ptr<const json>;

/// The ordinal of `pod` in `set` (stateful_set_utils.go getParentNameAndOrdinal), -1 when
/// its name is not <set>-<n>.
int ordinal_of(const std::string& pod, const std::string& set) {
  if (pod.size() <= set.size() + 1 || pod.compare(0, set.size(), set) != 0 || pod[set.size()] != '-')
    return -1;
  auto digits = pod.substr(set.size() + 1);
  if (digits.empty() || digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), ::isdigit))
    return -1;
  return std::stoi(digits);
}

/// <set>-<hash of the template>: the ControllerRevision name pods are labelled with
/// (history.ControllerRevisionName over a hash of the revision's data).
std::string revision_name(const json& set) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : set.value("/spec/template"_json_pointer, json::object()).dump()) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789"; // rand.SafeEncodeString's
  std::string out;
  for (int i = 0; i < 10; ++i, h /= 27)
    out += alphabet[h % 27];
  return name_of(set) + "-" + out;
}

bool running_and_ready(const json& pod) {
  return pod_phase(pod) == "Running" && is_pod_ready(pod);
}

json new_pod(const json& set, int ordinal, const std::string& revision) {
  auto name = name_of(set) + "-" + std::to_string(ordinal);
  auto pod = pod_from_template(set, name, {});
  auto& labels = pod["metadata"]["labels"];
  if (!labels.is_object())
    labels = json::object();
  // updateIdentity
  labels["statefulset.kubernetes.io/pod-name"] = name;
  labels["apps.kubernetes.io/pod-index"] = std::to_string(ordinal);
  labels["controller-revision-hash"] = revision;
  pod["spec"]["hostname"] = name;
  if (auto service = text_at(set, "/spec/serviceName"_json_pointer); !service.empty())
    pod["spec"]["subdomain"] = service;
  // updateStorage: each claim template becomes (or replaces) the volume of its name.
  auto& volumes = pod["spec"]["volumes"];
  if (!volumes.is_array())
    volumes = json::array();
  for (const auto& t : set.value("/spec/volumeClaimTemplates"_json_pointer, json::array())) {
    json volume = {{"name", name_of(t)}, {"persistentVolumeClaim", {{"claimName", statefulset_claim_name(set, t, ordinal)}}}};
    auto same = std::find_if(volumes.begin(), volumes.end(),
                             [&](const json& v) { return v.value("name", "") == name_of(t); });
    if (same != volumes.end())
      *same = volume;
    else
      volumes.push_back(volume);
  }
  return pod;
}

} // namespace

std::string statefulset_claim_name(const json& set, const json& claim_template, int ordinal) {
  return name_of(claim_template) + "-" + name_of(set) + "-" + std::to_string(ordinal);
}

json statefulset_pod(const json& set, int ordinal) {
  return new_pod(set, ordinal, revision_name(set));
}

statefulset_controller::statefulset_controller(object_store& store, std::chrono::milliseconds recreate_delay)
  : store_(store), create_delay_(recreate_delay) {}

void statefulset_controller::tick(std::chrono::system_clock::time_point now) {
  auto sets = store_.list_stored(statefulsets_key).items;
  if (sets.empty())
    return;
  component_identity_scope as{statefulset_controller_name};
  std::unordered_map<std::string, std::vector<pod_ptr>> owned; // set uid -> pods
  for (const auto& stored : store_.list_stored(pods_key).items) {
    auto pod = stored->parsed();
    auto ref = controller_of(*pod);
    if (ref.is_object() && ref.value("kind", "") == "StatefulSet")
      owned[ref.value("uid", "")].push_back(pod);
  }
  for (const auto& stored : sets) {
    auto set = stored->parsed();
    const auto& pods = owned[uid_of(*set)];
    auto ns = namespace_of(*set);
    auto replicas = static_cast<int>(set->value("/spec/replicas"_json_pointer, 1));
    auto revision = revision_name(*set);
    std::vector<pod_ptr> by_ordinal(static_cast<std::size_t>(std::max(0, replicas)));
    std::map<int, pod_ptr, std::greater<int>> condemned;
    json status = {{"observedGeneration", set->value("/metadata/generation"_json_pointer, 1)},
                   {"replicas", 0},
                   {"readyReplicas", 0},
                   {"currentReplicas", 0},
                   {"updatedReplicas", 0},
                   {"availableReplicas", 0},
                   {"currentRevision", revision},
                   {"updateRevision", revision},
                   {"collisionCount", 0}};
    for (const auto& pod : pods) {
      status["replicas"] = status["replicas"].get<int>() + 1;
      if (running_and_ready(*pod)) {
        status["readyReplicas"] = status["readyReplicas"].get<int>() + 1;
        status["availableReplicas"] = status["availableReplicas"].get<int>() + 1;
      }
      if (!is_terminating(*pod)
          && text_at(*pod, "/metadata/labels/controller-revision-hash"_json_pointer) == revision) {
        status["currentReplicas"] = status["currentReplicas"].get<int>() + 1;
        status["updatedReplicas"] = status["updatedReplicas"].get<int>() + 1;
      }
      auto ord = ordinal_of(name_of(*pod), name_of(*set));
      if (ord >= 0 && ord < replicas)
        by_ordinal[static_cast<std::size_t>(ord)] = pod;
      else if (ord >= replicas)
        condemned[ord] = pod;
    }
    store_.modify(
      statefulsets_key, ns, name_of(*set),
      [&](json& s) {
        if (s.value("status", json::object()) == status)
          return false;
        s["status"] = status;
        return true;
      },
      true);
    if (is_terminating(*set))
      continue;
    bool monotonic = set->value("/spec/podManagementPolicy"_json_pointer, std::string{"OrderedReady"}) != "Parallel";
    bool waiting = false;
    for (int ord = 0; ord < replicas && !waiting; ++ord) {
      auto pod = by_ordinal[static_cast<std::size_t>(ord)];
      auto pod_name = name_of(*set) + "-" + std::to_string(ord);
      if (pod && is_pod_terminal(*pod) && !is_terminating(*pod)) {
        // "delete and recreate failed pods"
        record_event(store_, object_reference(*set), "Warning", "RecreatingFailedPod",
                     "StatefulSet " + ns + "/" + name_of(*set) + " is recreating failed Pod " + pod_name, statefulset_controller_name);
        delete_pod(store_, ns, pod_name, json::object());
        pod = nullptr;
      }
      if (!pod) {
        if (!create_delay_.due(ns + "/" + pod_name, now)) {
          waiting = monotonic;
          continue;
        }
        create_delay_.done(ns + "/" + pod_name);
        for (const auto& t : set->value("/spec/volumeClaimTemplates"_json_pointer, json::array())) {
          auto claim = statefulset_claim_name(*set, t, ord);
          if (store_.get("persistentvolumeclaims", ns, claim))
            continue;
          json pvc = {{"apiVersion", "v1"},
                      {"kind", "PersistentVolumeClaim"},
                      {"metadata", {{"name", claim}, {"namespace", ns},
                                    {"labels", set->value("/spec/selector/matchLabels"_json_pointer, json::object())}}},
                      {"spec", t.value("spec", json::object())},
                      {"status", {{"phase", "Pending"}}}};
          auto made = store_.create("persistentvolumeclaims", std::move(pvc));
          record_event(store_, object_reference(*set), made ? "Normal" : "Warning",
                       made ? "SuccessfulCreate" : "FailedCreate",
                       std::string{"create Claim "} + claim + " Pod " + pod_name + " in StatefulSet " + name_of(*set)
                         + (made ? " success" : " failed error: " + made.err().message),
                       statefulset_controller_name);
        }
        auto made = store_.create(pods_key, new_pod(*set, ord, revision));
        record_event(store_, object_reference(*set), made ? "Normal" : "Warning",
                     made ? "SuccessfulCreate" : "FailedCreate",
                     "create Pod " + pod_name + " in StatefulSet " + name_of(*set)
                       + (made ? " successful" : " failed error: " + made.err().message),
                     statefulset_controller_name);
        if (!made)
          spdlog::warn("{}: creating pod {}/{}: {}", statefulset_controller_name, ns, pod_name, made.err().message);
        waiting = monotonic; // "if monotonic, wait for the pod to be Running and Ready"
        continue;
      }
      if (monotonic && (is_terminating(*pod) || !running_and_ready(*pod)))
        waiting = true;
    }
    // Scale down: the highest ordinal first, one at a time under OrderedReady.
    for (const auto& [ord, pod] : condemned) {
      if (waiting)
        break;
      if (!is_terminating(*pod)) {
        delete_pod(store_, ns, name_of(*pod), json::object());
        record_event(store_, object_reference(*set), "Normal", "SuccessfulDelete",
                     "delete Pod " + name_of(*pod) + " in StatefulSet " + name_of(*set) + " successful", statefulset_controller_name);
      }
      waiting = monotonic;
    }
  }
  create_delay_.sweep();
}

} // namespace schedopt::sim
