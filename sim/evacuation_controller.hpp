// The simulated virt-controller evacuation controller: for VMIs marked for evacuation
// (status.evacuationNodeName, set when a drain evicts their pod) it creates
// `kubevirt-evacuation-` VMIMs within KubeVirt's free migration spots, node by node, and
// clears the mark once a VMI has migrated away as virt-handler does.
#pragma once

#include <chrono>
#include <memory>

#include "sim/kubevirt_cr_settings.hpp"
#include "sim/kubevirt_version.hpp"

namespace schedopt::sim {

class object_store;

struct evacuation_controller_options {
  std::chrono::milliseconds tick_interval{100};
  /// evacuation.go sync: a node with no free spot is looked at again after this.
  std::chrono::milliseconds no_spot_requeue{std::chrono::seconds{5}};
  /// evacuation.go sync: a node with only non-migratable candidates, after this.
  std::chrono::milliseconds not_migratable_requeue{std::chrono::minutes{1}};
  /// The caps and eviction strategy when the store holds no KubeVirt CR.
  kubevirt_cr_settings fallback;
  /// From 1.7, with the MigrationPriorityQueue gate (always from 1.9), evacuations are
  /// created all at once and system-critical.
  kubevirt_version kubevirt;
};

class evacuation_controller {
public:
  /// Observes VMIs, VMIMs and nodes of `store` from now on; construct it before the
  /// scenario is stored so that no object has to be replayed.
  evacuation_controller(object_store& store, evacuation_controller_options options);
  ~evacuation_controller();

  /// Runs tick() every tick_interval on a thread of its own.
  void start();
  void stop();

  /// Works off every node queued by a change, or by a requeue due at `now`; tests call
  /// it directly to step simulated time.
  void tick(std::chrono::system_clock::time_point now);

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
