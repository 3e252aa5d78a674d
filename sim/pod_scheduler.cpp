// The scheduling cycle of kubernetes pkg/scheduler/schedule_one.go (schedulingCycle,
// then bind), with the volume checks of plugins/volumebinding (a claim that is missing
// or unbound fails PreFilter) and the binding of pkg/registry/core/pod/storage
// BindingREST (spec.nodeName and PodScheduled=True). Events as kube-scheduler records
// them: Scheduled "Successfully assigned <ns>/<pod> to <node>", FailedScheduling.
#include "sim/pod_scheduler.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "model/timestamp.hpp"
#include "sim/audit_log.hpp"
#include "sim/event_recorder.hpp"
#include "sim/object_store.hpp"
#include "sim/pod_facts.hpp"
#include "sim/pod_placement.hpp"
#include "sim/pod_templates.hpp"
#include "sim/storage_backend.hpp"
#include "sim/vmi_usage_index.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

using pod_ptr = std::shared_ptr<const json>;

bool pending(const json& pod) {
  return text_at(pod, "/spec/nodeName"_json_pointer).empty() && !is_terminating(pod) && !is_pod_terminal(pod)
         && pod.value("/spec/schedulingGates"_json_pointer, json::array()).empty();
}

/// The scheduler that reports on a pod, by its schedulerName.
std::string scheduler_of(const json& pod) {
  auto name = text_at(pod, "/spec/schedulerName"_json_pointer);
  return name.empty() ? std::string{"default-scheduler"} : name;
}

} // namespace

pod_scheduler::pod_scheduler(object_store& store, const storage_backend& storage, pod_scheduler_options options)
  : store_(store), storage_(storage), options_(std::move(options)) {}

pod_scheduler::~pod_scheduler() = default;

bool pod_scheduler::bind(const json& pod, const std::string& node, const std::string& stamp) {
  if (options_.bind) {
    auto bound = options_.bind(pod, node);
    if (!bound)
      spdlog::warn("{}: cannot bind {}/{} to {}: {}", scheduler_of(pod), namespace_of(pod), name_of(pod), node,
                   bound.err().message);
    return bound.has_value();
  }
  auto ns = namespace_of(pod);
  auto name = name_of(pod);
  auto uid = uid_of(pod);
  auto bound = store_.modify(pods_key, ns, name, [&](json& p) {
    if (uid_of(p) != uid || !text_at(p, "/spec/nodeName"_json_pointer).empty())
      return false;
    p["spec"]["nodeName"] = node;
    return true;
  });
  if (!bound || text_at(*bound, "/spec/nodeName"_json_pointer) != node)
    return false;
  store_.modify(pods_key, ns, name, [&](json& p) { return set_pod_condition(p, "PodScheduled", "True", stamp); },
                true);
  return true;
}

void pod_scheduler::tick(std::chrono::system_clock::time_point now) {
  auto stored = store_.list_stored(pods_key).items;
  std::vector<pod_ptr> waiting;
  std::set<std::string> live;
  for (const auto& s : stored) {
    auto pod = s->parsed();
    if (pending(*pod) && (options_.only_scheduler.empty() || scheduler_of(*pod) == options_.only_scheduler)) {
      waiting.push_back(pod);
      live.insert(uid_of(*pod));
    }
  }
  for (auto it = unschedulable_.begin(); it != unschedulable_.end();)
    it = live.count(it->first) ? std::next(it) : unschedulable_.erase(it);
  if (waiting.empty())
    return;
  if (!vmis_) {
    vmis_ = std::make_shared<vmi_usage_index>();
    vmis_->attach(store_);
  }
  // The scheduling queue's order: priority, then age.
  std::stable_sort(waiting.begin(), waiting.end(), [](const pod_ptr& a, const pod_ptr& b) {
    auto pa = a->value("/spec/priority"_json_pointer, 0), pb = b->value("/spec/priority"_json_pointer, 0);
    if (pa != pb)
      return pa > pb;
    return text_at(*a, "/metadata/creationTimestamp"_json_pointer) < text_at(*b, "/metadata/creationTimestamp"_json_pointer);
  });

  auto nodes = store_.list("nodes").items;
  std::map<std::string, pod_resources> used;
  for (const auto& s : stored) {
    auto pod = s->parsed();
    auto node = text_at(*pod, "/spec/nodeName"_json_pointer);
    if (node.empty() || is_pod_terminal(*pod) || is_virt_launcher(*pod))
      continue; // a virt-launcher pod's requests are its VMI's, counted below
    auto r = pod_requests(*pod);
    used[node].cpu_millis += r.cpu_millis;
    used[node].memory_bytes += r.memory_bytes;
  }
  vmis_->for_each([&](const std::string&, const vmi_usage& v) {
    if (v.node.empty() || v.phase == "Succeeded" || v.phase == "Failed")
      return;
    used[v.node].cpu_millis += v.requests.cpu_millis;
    used[v.node].memory_bytes += v.requests.memory_bytes;
  });

  auto stamp = format_rfc3339(now);
  for (const auto& pod : waiting) {
    auto uid = uid_of(*pod);
    auto tried = unschedulable_.find(uid);
    if (tried != unschedulable_.end() && now - tried->second.at < options_.retry)
      continue;
    auto ns = namespace_of(*pod);
    auto name = name_of(*pod);
    auto scheduler = scheduler_of(*pod);
    component_identity_scope as{scheduler};
    placement_request request;
    request.pod = pod.get();
    request.nodes = &nodes;
    request.used = &used;
    std::string volume_problem;
    for (const auto& claim : pod_claims(*pod)) {
      auto pvc = store_.get("persistentvolumeclaims", ns, claim);
      if (!pvc) {
        volume_problem = "persistentvolumeclaim \"" + claim + "\" not found";
        break;
      }
      auto pv_name = text_at(*pvc, "/spec/volumeName"_json_pointer);
      auto pv = pv_name.empty() ? expected<json>(make_error(ec::not_found, "unbound"))
                                : store_.get("persistentvolumes", "", pv_name);
      if (!pv) {
        volume_problem = "pod has unbound immediate PersistentVolumeClaims";
        break;
      }
      request.volume_affinities.push_back(
        pv->value("/spec/nodeAffinity/required/nodeSelectorTerms"_json_pointer, json::array()));
      auto handle = text_at(*pv, "/spec/csi/volumeHandle"_json_pointer);
      if (handle.empty())
        continue;
      if (auto volume = storage_.volume(handle); volume && volume->driver == text_at(*pv, "/spec/csi/driver"_json_pointer))
        request.replica_nodes.emplace_back(volume->replica_nodes.begin(), volume->replica_nodes.end());
    }
    placement_decision decision;
    if (auto planned = options_.planned_node ? options_.planned_node(*pod) : std::string{}; !planned.empty())
      decision.node = planned;
    else if (volume_problem.empty())
      decision = place_pod(request);
    else
      decision.message = "0/" + std::to_string(nodes.size()) + " nodes are available: " + volume_problem + ".";
    if (decision.node.empty()) {
      bool changed = tried == unschedulable_.end() || tried->second.message != decision.message;
      unschedulable_[uid] = {now, decision.message};
      store_.modify(
        pods_key, ns, name,
        [&](json& p) { return set_pod_condition(p, "PodScheduled", "False", stamp, "Unschedulable", decision.message); },
        true);
      if (changed)
        record_event(store_, object_reference(*pod), "Warning", "FailedScheduling", decision.message, scheduler);
      continue;
    }
    unschedulable_.erase(uid);
    if (!bind(*pod, decision.node, stamp))
      continue;
    auto r = pod_requests(*pod);
    used[decision.node].cpu_millis += r.cpu_millis;
    used[decision.node].memory_bytes += r.memory_bytes;
    record_event(store_, object_reference(*pod), "Normal", "Scheduled",
                 "Successfully assigned " + ns + "/" + name + " to " + decision.node, scheduler);
  }
}

} // namespace schedopt::sim
