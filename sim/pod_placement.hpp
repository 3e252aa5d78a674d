// Where a scheduler puts a new pod, decided from the objects (never by schedopt's own
// rules): kube-scheduler's filters and its least-allocated score, plus, for a pod whose
// schedulerName is stork, Stork's extender priorities, which put a pod on the nodes
// holding replicas of its volumes.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/target_pod_scheduler.hpp"

namespace schedopt::sim {

/// The scheduler names whose pods are scored with Stork's extender (its deployment's
/// scheduler profile, libopenstorage/stork specs/stork-scheduler.yaml).
constexpr const char* stork_scheduler_name = "stork";

struct placement_request {
  const nlohmann::json* pod = nullptr;
  /// Every node, with what is already requested on it (pods bound there and VMIs); both
  /// shared by every pod of a scheduling pass, so they are pointed at, not copied.
  const std::vector<nlohmann::json>* nodes = nullptr;
  const std::map<std::string, pod_resources>* used = nullptr;
  /// Per driver volume of the pod, the nodes holding its replicas.
  std::vector<std::set<std::string>> replica_nodes;
  /// Per bound PV of the pod, its required node affinity terms (empty: none).
  std::vector<nlohmann::json> volume_affinities;
};

struct placement_decision {
  std::string node;    // empty: the pod stays Pending
  std::string message; // when empty node: FailedScheduling's "0/N nodes are available: ..."
  /// Each feasible node's total score, for the audit and tests.
  std::map<std::string, int64_t> scores;
};

/// The node kube-scheduler binds the pod to: among nodes that pass the filters
/// (nodeunschedulable, node readiness, nodeaffinity, tainttoleration, noderesources fit,
/// volumebinding's PV node affinity), the highest score; a tie goes to the first node by
/// name (kube-scheduler picks one of the tied at random).
placement_decision place_pod(const placement_request& request);

/// noderesources least_allocated.go leastResourceScorer: for cpu and memory (weight 1
/// each), (allocatable - requested) * 100 / allocatable, averaged; 0..100.
int64_t least_allocated_score(const nlohmann::json& node, const pod_resources& requested);

/// libopenstorage/stork pkg/extender/extender.go processPrioritizeRequest/getNodeScore,
/// summed over the pod's driver volumes: 100 for a node holding a replica, 25 for a node
/// in the zone of a replica (topology.kubernetes.io/zone), else 0; a node left at 0 gets
/// defaultScore 5.
int64_t stork_score(const nlohmann::json& node, const std::vector<std::set<std::string>>& replica_nodes,
                    const std::map<std::string, std::string>& zones);

} // namespace schedopt::sim
