// A generated cluster: nodes, namespaces, VMs/VMIs, PVCs, PVs and volume replicas,
// reproducible for a seed (docs/simulator.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/error.hpp"
#include "sim/kubevirt_version.hpp"

namespace schedopt::sim {

class object_store;
class storage_backend;

struct scenario_options {
  int nodes = 6;
  int vmis = 40;
  int volumes_per_vmi = 2;
  int replicas = 2;
  double misplaced = 0.3;      // fraction of VMIs started on a node that scores below best
  double not_migratable = 0.0; // fraction with condition LiveMigratable=False
  double constrained = 0.0;    // fraction whose nodeSelector / required affinity excludes
                               // some of their replica nodes
  int tainted_nodes = 0;       // nodes tainted dedicated=vms:NoSchedule, tolerated by some
  int full_nodes = 0;          // nodes whose allocatable memory leaves no room for a VMI
  double migration_failure_rate = 0.0;
  std::chrono::milliseconds migration_duration{2000}; // Running -> Succeeded, jittered
  int64_t migration_bandwidth = 0; // bytes/s of simulated time; 0: migration_duration
  std::string vmi_memory = "4Gi";  // each VMI's guest memory (what a migration transfers)
  std::chrono::milliseconds vmi_update_lag{0}; // VMIM Succeeded -> its VMI's new node
  std::chrono::milliseconds phase_delay{200};         // each VMIM phase before Running, jittered
  int parallel_migrations_per_cluster = 5;
  int parallel_outbound_migrations_per_node = 2;
  /// Nodes without virt-handler: no kubevirt.io/schedulable label and none of its node
  /// labeller's CPU labels; they hold replicas but never a VMI.
  int nodes_without_virt_handler = 0;
  /// Host CPU models, given to the virt-handler nodes round-robin; empty: one model.
  std::vector<std::string> cpu_models;
  /// VMI status updates per second that virt-handler writes and schedopt does not read.
  double vmi_churn_per_second = 0;
  std::string driver = "portworx"; // or "csi-topology", "longhorn"
  /// Stateful pods (SPEC §9), planned from a generator of their own so the VMI side of
  /// a seed is the same with or without them; 0 creates no pod objects at all.
  int pods = 0;
  int volumes_per_pod = 1;
  double pods_in_statefulsets = 0.5; // of the controlled pods; the rest in ReplicaSets
  double pods_uncontrolled = 0.1;    // bare pods, DaemonSet- and Job-owned pods
  double pods_default_scheduler = 0.2; // workloads not scheduled by stork
  double pods_misplaced = 0.3;       // pods started on a node scoring below best
  double pdb_blocked = 0.0;          // workloads whose PDB allows no disruption
  double pdb_overlap = 0.0;          // workloads covered by a second PDB
  std::chrono::milliseconds pod_recreate_delay{500};
  std::chrono::milliseconds pod_start_delay{1000};
  std::chrono::milliseconds pod_termination_delay{1000};
  /// The KubeVirt release answered as (--kubevirt-version).
  kubevirt_version kubevirt;
  uint64_t seed = 1;
  /// The world lives in a real API server (schedopt-sim attach): nodes register as a
  /// kubelet registers them, without conditions, for kwok to make Ready; the control
  /// plane's own controllers stand in for the simulator's pod controllers.
  bool attached = false;
};

/// A message naming the first bad option (counts below 1, fractions outside [0, 1],
/// unknown driver); populate() clamps whatever it is given.
expected<bool> validate(const scenario_options& options);

/// Where an attached scenario's pods should first run, by `ns/name` of the pod's
/// controller, or of the pod for a StatefulSet's or a bare pod (first_placement_key).
using first_placements = std::map<std::string, std::string>;

/// Fills `store` (and the replica placement in `storage`) with the scenario's objects.
/// Attached, the pods are their controllers' to make and a scheduler's to bind: their
/// planned nodes are returned (empty otherwise).
first_placements populate(object_store& store, storage_backend& storage, const scenario_options& options);

} // namespace schedopt::sim
