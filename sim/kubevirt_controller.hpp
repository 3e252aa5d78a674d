// The simulated virt-controller migration loop: walks VMIMs through their phases per a
// stage table, enforces KubeVirt's parallelism caps, picks targets (honouring
// spec.addedNodeSelector), moves VMIs, fails a seeded share, times the transfer by VM
// memory, aborts on delete (racing completion) and garbage-collects finished VMIMs.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "sim/kubevirt_config.hpp"
#include "sim/kubevirt_version.hpp"
#include "sim/migration_stages.hpp"

namespace schedopt::sim {

class object_store;

struct kubevirt_controller_options {
  /// The release answered as: its virt-config defaults fill what the KubeVirt CR omits.
  kubevirt_version kubevirt;
  /// The migration configuration while the store holds no deployed KubeVirt CR (bare
  /// stores in unit tests); with one, the CR is read on every tick.
  migration_config migrations;
  /// Simulated transfer rate in bytes per second: a migration's Running phase lasts the
  /// VMI's memory divided by it (capped by the CR's bandwidthPerMigration). 0 keeps the
  /// stage table's Running delay, unless the CR sets a bandwidth.
  int64_t migration_bandwidth = 0;
  /// A VMIM held back by the caps is looked at again this long after (migration.go
  /// handleTargetPodCreation), or sooner when it or its VMI changes.
  std::chrono::milliseconds held_requeue{5000};
  /// From the abort request on a Running migration (VMI migrationState.abortRequested)
  /// to virt-launcher's AbortJob: a migration finishing within it ends Succeeded.
  std::chrono::milliseconds abort_latency{1000};
  double migration_failure_rate = 0.0;
  migration_stage_table stages =
      default_migration_stages(std::chrono::milliseconds{200}, std::chrono::milliseconds{2000});
  std::chrono::milliseconds tick_interval{20};
  std::size_t finished_kept_per_vmi = 5; // KubeVirt's finalized-migration GC buffer
  /// How long after a VMIM turns Succeeded its VMI gets the new nodeName and the
  /// completed migrationState: 0 writes both in one tick. Models the two objects reaching
  /// a client on separate watch streams, one of them behind.
  std::chrono::milliseconds vmi_update_lag{0};
  uint64_t seed = 1;
};

class kubevirt_controller {
public:
  kubevirt_controller(object_store& store, kubevirt_controller_options options);
  ~kubevirt_controller();

  /// Runs tick() every tick_interval on a thread of its own.
  void start();
  void stop();

  /// One reconcile pass over every VMIM as of `now`; tests call it directly to step
  /// simulated time without the thread.
  void tick(std::chrono::system_clock::time_point now);

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
