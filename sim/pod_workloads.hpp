// Everything that moves pods in the simulated cluster, on one thread: the StatefulSet
// and ReplicaSet controllers, the disruption controller, the schedulers, the kubelets and
// KubeVirt's virt-launcher pods (docs/simulator.md "Pods and their workloads").
#pragma once

#include <chrono>
#include <memory>

namespace schedopt::sim {

class object_store;
class storage_backend;

struct pod_workload_options {
  /// From a workload controller noticing a missing pod to creating its replacement.
  std::chrono::milliseconds recreate_delay{500};
  /// From a pod's binding to it being Running and Ready.
  std::chrono::milliseconds start_delay{1000};
  /// From a pod's deletionTimestamp to its removal (at most its grace period).
  std::chrono::milliseconds termination_delay{1000};
  std::chrono::milliseconds tick_interval{50};
  /// KubeVirt's virt-launcher pods as pod objects (sim/launcher_pods); the world turns
  /// them on with --pods, so a VMI-only cluster keeps its memory.
  bool launcher_pods = false;
};

class pod_workloads {
public:
  /// Observes the store from now on (the disruption controller's dirty marks).
  pod_workloads(object_store& store, const storage_backend& storage, pod_workload_options options);
  ~pod_workloads();

  /// One tick() now, so the cluster is settled (statuses, budgets, launcher pods) before
  /// it serves, then every tick_interval on a thread of its own.
  void start();
  void stop();

  /// One pass of every component, in the order a change travels: workload controllers,
  /// scheduler, kubelets, disruption controller. Tests call it to step time.
  void tick(std::chrono::system_clock::time_point now);

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
