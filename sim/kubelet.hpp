// The kubelets of the simulated cluster, for pod objects: a pod bound to a node starts
// (Running, Ready) a set delay later; a pod being deleted stops (not Ready) and is
// removed once its grace period or the set termination delay, whichever is shorter, has
// passed. Containers start and stop without failing.
#pragma once

#include <chrono>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace schedopt::sim {

class object_store;

struct kubelet_options {
  std::chrono::milliseconds start_delay{1000};       // bound -> Running and Ready
  std::chrono::milliseconds termination_delay{1000}; // deletionTimestamp -> gone, at most
};

/// The status a kubelet reports for a pod whose containers all started on a node with
/// address `host_ip` at `now` (RFC 3339): Running, every condition True, a pod IP, each
/// container running and ready.
void report_pod_started(nlohmann::json& pod, const std::string& host_ip, const std::string& now);

class kubelet {
public:
  kubelet(object_store& store, kubelet_options options);

  /// One pass of every node's kubelet over its pods as of `now`.
  void tick(std::chrono::system_clock::time_point now);

private:
  object_store& store_;
  kubelet_options options_;
  std::unordered_map<std::string, std::chrono::system_clock::time_point> bound_since_;    // pod uid
  std::unordered_map<std::string, std::chrono::system_clock::time_point> stopping_since_; // pod uid
};

} // namespace schedopt::sim
