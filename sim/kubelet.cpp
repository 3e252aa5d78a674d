// The kubelet's pod lifecycle as the API sees it, after kubernetes pkg/kubelet:
// status_manager.go (the conditions PodReadyToStartContainers, Initialized,
// ContainersReady, Ready, PodScheduled and containerStatuses it reports), and the
// termination path of pod_workers.go / kubelet.go (killPod, then the status manager's
// final delete with grace 0 once the containers stopped). Startup and shutdown take
// configured delays instead of real containers.
#include "sim/kubelet.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "model/timestamp.hpp"
#include "sim/audit_log.hpp"
#include "sim/object_store.hpp"
#include "sim/pod_facts.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

constexpr const char* kubelet_name = "kubelet";

/// A pod address from the pod's uid, in the cluster's pod CIDR.
std::string pod_ip(const std::string& uid) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : uid) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return "10.244." + std::to_string(h % 250) + "." + std::to_string((h / 250) % 250 + 2);
}

std::string internal_ip(const json& node) {
  for (const auto& a : node.value("/status/addresses"_json_pointer, json::array()))
    if (a.value("type", "") == "InternalIP")
      return a.value("address", std::string{});
  return {};
}

} // namespace

void report_pod_started(json& pod, const std::string& host_ip, const std::string& now) {
  auto& status = pod["status"];
  status["phase"] = "Running";
  status["hostIP"] = host_ip;
  status["hostIPs"] = json::array({{{"ip", host_ip}}});
  auto ip = pod_ip(uid_of(pod));
  status["podIP"] = ip;
  status["podIPs"] = json::array({{{"ip", ip}}});
  status["startTime"] = now;
  for (const char* type : {"PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready", "PodScheduled"})
    set_pod_condition(pod, type, "True", now);
  json containers = json::array();
  for (const auto& c : pod.value("/spec/containers"_json_pointer, json::array())) {
    auto image = c.value("image", std::string{});
    containers.push_back({{"name", c.value("name", std::string{})},
                          {"image", image},
                          {"imageID", image + "@sha256:" + std::string(64, '0')},
                          {"containerID", "containerd://" + pod_ip(uid_of(pod) + c.value("name", std::string{}))},
                          {"ready", true},
                          {"started", true},
                          {"restartCount", 0},
                          {"state", {{"running", {{"startedAt", now}}}}},
                          {"lastState", json::object()}});
  }
  status["containerStatuses"] = containers;
}

namespace {

/// killPod: the containers get SIGTERM; the pod is no longer Ready.
bool report_stopping(json& pod, const std::string& now) {
  bool changed = set_pod_condition(pod, "ContainersReady", "False", now, "ContainersNotReady",
                                   "containers with unready status");
  changed = set_pod_condition(pod, "Ready", "False", now, "ContainersNotReady", "containers with unready status")
            || changed;
  for (auto& c : pod["status"]["containerStatuses"])
    if (c.value("ready", false)) {
      c["ready"] = false;
      changed = true;
    }
  return changed;
}

} // namespace

kubelet::kubelet(object_store& store, kubelet_options options) : store_(store), options_(options) {}

void kubelet::tick(std::chrono::system_clock::time_point now) {
  auto pods = store_.list_stored(pods_key).items;
  std::set<std::string> live;
  std::map<std::string, std::string> host_ips;
  bool nodes_read = false;
  component_identity_scope as{kubelet_name};
  auto stamp = format_rfc3339(now);
  for (const auto& stored : pods) {
    auto pod = stored->parsed();
    auto node = text_at(*pod, "/spec/nodeName"_json_pointer);
    if (node.empty())
      continue;
    auto uid = uid_of(*pod);
    live.insert(uid);
    auto ns = namespace_of(*pod);
    auto name = name_of(*pod);
    auto same_pod = [&](const json& p) { return uid_of(p) == uid; };
    if (is_terminating(*pod)) {
      auto [since, fresh] = stopping_since_.emplace(uid, now);
      if (fresh && is_pod_ready(*pod))
        store_.modify(pods_key, ns, name, [&](json& p) { return same_pod(p) && report_stopping(p, stamp); }, true);
      auto grace = std::chrono::seconds{pod->value("/metadata/deletionGracePeriodSeconds"_json_pointer, int64_t{0})};
      auto delay = std::min<std::chrono::milliseconds>(options_.termination_delay, grace);
      if (now - since->second >= delay) {
        // The status manager's final Delete with grace 0, guarded by the pod's uid.
        if (auto current = store_.get(pods_key, ns, name); current && same_pod(*current))
          store_.remove(pods_key, ns, name);
        stopping_since_.erase(uid);
      }
      continue;
    }
    if (is_pod_terminal(*pod) || pod_phase(*pod) == "Running")
      continue;
    auto since = bound_since_.emplace(uid, now).first;
    if (now - since->second < options_.start_delay)
      continue;
    if (!nodes_read) {
      for (const auto& n : store_.list("nodes").items)
        host_ips[name_of(n)] = internal_ip(n);
      nodes_read = true;
    }
    store_.modify(
      pods_key, ns, name,
      [&](json& p) {
        if (!same_pod(p) || is_terminating(p) || pod_phase(p) == "Running")
          return false;
        report_pod_started(p, host_ips[node], stamp);
        return true;
      },
      true);
    bound_since_.erase(uid);
  }
  for (auto it = bound_since_.begin(); it != bound_since_.end();)
    it = live.count(it->first) ? std::next(it) : bound_since_.erase(it);
  for (auto it = stopping_since_.begin(); it != stopping_since_.end();)
    it = live.count(it->first) ? std::next(it) : stopping_since_.erase(it);
}

} // namespace schedopt::sim
