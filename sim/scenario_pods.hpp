// The stateful pods of a scenario (--pods): StatefulSets and ReplicaSets of database and
// queue pods with driver volumes and PodDisruptionBudgets, plus bare, DaemonSet- and
// Job-owned pods, already running where a scheduler put them (or, for a misplaced share,
// on a node holding fewer of their replicas). Planned from a generator of its own, so a
// seed's VMIs are the same with or without pods.
#pragma once

#include <chrono>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario.hpp"
#include "sim/scenario_planner.hpp"

namespace schedopt::sim {

/// The namespaces the scenario's pods live in.
const std::vector<std::string>& pod_namespaces();

/// One pod: its name, the node it runs on and its claims (indices into the workload's
/// volumes, in volume order).
struct planned_pod {
  std::string name;
  std::string node;
  int ordinal = -1; // a StatefulSet pod's ordinal
  std::vector<std::size_t> volumes;
};

/// A workload and everything it owns. `owner` is null for a bare pod; pods are built
/// from the stored owner (its uid) when the scenario is stored.
struct planned_workload {
  std::string ns;
  std::string kind; // StatefulSet, ReplicaSet, DaemonSet, Job, or "" for a bare pod
  nlohmann::json owner;
  nlohmann::json bare_template; // a bare pod's template (owner is null)
  std::vector<planned_pod> pods;
  std::vector<planned_volume> volumes;
  std::vector<nlohmann::json> budgets;
};

class pod_scenario_planner {
public:
  /// `nodes` in name order; `tainted` by the same index (pods do not tolerate the
  /// scenario's dedicated=vms taint).
  pod_scenario_planner(const scenario_options& options, std::vector<storage_node> nodes,
                       std::vector<bool> tainted);

  /// Every workload, in a fixed order for the seed.
  std::vector<planned_workload> plan();

private:
  /// `same_as`: another volume of the pod, whose replica nodes this one shares (a
  /// csi-topology pod's volumes are provisioned where the pod can run them all).
  planned_volume plan_volume(const std::string& ns, const std::string& claim, const std::string& app,
                             const planned_volume* same_as = nullptr);
  std::string place(const std::vector<std::size_t>& volumes, const std::vector<planned_volume>& all, bool misplaced);

  scenario_options options_;
  std::vector<storage_node> nodes_;
  std::vector<bool> tainted_;
  std::mt19937_64 rng_;
  const char* driver_;
  const char* storage_class_;
  bool topology_;
};

/// `ns/name` of the pod's controller (its ReplicaSet, DaemonSet or Job names the pod),
/// or of the pod itself (a StatefulSet's pod, a bare pod).
std::string first_placement_key(const nlohmann::json& pod);

/// Stores `workloads`: owners, claims and volumes (added to `storage`), running pods
/// owned by their stored owners, budgets. `node_ips` maps node names to addresses.
void store_pod_workloads(object_store& store, storage_backend& storage, std::vector<planned_workload>& workloads,
                         const std::map<std::string, std::string>& node_ips, bool longhorn);

/// Attached to a real API server: creates claims and volumes, budgets and owners, whose
/// controllers there make the pods, and the bare pods unbound; where each should first
/// run is returned for the scheduler that binds it (Stork's pods), not written. A
/// non-zero `termination_delay` is kwok's delay annotation on every pod.
first_placements create_pod_workloads(object_store& store, storage_backend& storage,
                                      std::vector<planned_workload>& workloads, bool longhorn,
                                      std::chrono::milliseconds termination_delay);

} // namespace schedopt::sim
