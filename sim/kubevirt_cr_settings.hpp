// What the drain and evacuation pieces read from the stored KubeVirt CR: the migration
// caps and the cluster-wide eviction strategy, with KubeVirt's defaults when no CR (or
// no such field) is stored.
#pragma once

#include <string>
#include <vector>

namespace schedopt::sim {

class object_store;

struct kubevirt_cr_settings {
  int parallel_migrations_per_cluster = 5;       // virt-config ParallelMigrationsPerCluster
  int parallel_outbound_migrations_per_node = 2; // virt-config ParallelOutboundMigrationsPerNode
  std::string eviction_strategy = "None";        // virt-config configuration.go defaultEvictionStrategy
  std::vector<std::string> feature_gates;        // developerConfiguration.featureGates

  /// True when the CR's developerConfiguration.featureGates lists `gate`
  /// (virt-config feature-gates.go isFeatureGateDefined).
  bool lists_gate(const std::string& gate) const;
};

/// `fallback` overlaid with spec.configuration of the KubeVirt CR KubeVirt configures
/// itself from (find_kubevirt_cr), as virt-config's ClusterConfig merges the CR over its
/// defaults. A field absent keeps the fallback; an invalid migrations block keeps the
/// fallback caps.
kubevirt_cr_settings read_kubevirt_cr_settings(const object_store& store, kubevirt_cr_settings fallback = {});

} // namespace schedopt::sim
