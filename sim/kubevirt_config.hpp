// The served KubeVirt CR (kubevirt/kubevirt) and the migration configuration KubeVirt
// reads from it: virt-config's defaults for fields the CR leaves out.
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "model/error.hpp"
#include "sim/kubevirt_version.hpp"

namespace schedopt::sim {

class object_store;

constexpr const char* kubevirt_cr_key = "kubevirts.kubevirt.io";
constexpr const char* kubevirt_cr_namespace = "kubevirt"; // virt-operator's install namespace
constexpr const char* kubevirt_cr_name = "kubevirt";

/// spec.configuration.migrations as KubeVirt uses it (v1.MigrationConfiguration).
struct migration_config {
  int parallel_migrations_per_cluster = 5;
  int parallel_outbound_migrations_per_node = 2;
  int64_t bandwidth_per_migration = 0; // bytes per second; 0 is unlimited ("0Mi")
  int64_t progress_timeout = 150;      // seconds without progress
  int64_t completion_timeout_per_gib = 150;

  bool operator==(const migration_config& o) const {
    return parallel_migrations_per_cluster == o.parallel_migrations_per_cluster
           && parallel_outbound_migrations_per_node == o.parallel_outbound_migrations_per_node
           && bandwidth_per_migration == o.bandwidth_per_migration && progress_timeout == o.progress_timeout
           && completion_timeout_per_gib == o.completion_timeout_per_gib;
  }
};

/// pkg/virt-config/virt-config.go of release `v`: completionTimeoutPerGiB is 800 in 1.3
/// and 150 from 1.4; the rest is the same in every modelled release.
migration_config default_migration_config(kubevirt_version v);

/// The KubeVirt CR as virt-operator leaves it once deployed: `migrations` as the
/// configuration, status Deployed at release `v`.
nlohmann::json kubevirt_cr(kubevirt_version v, const nlohmann::json& migrations);

/// Creates namespace kubevirt (when absent) and the CR kubevirt/kubevirt with its status.
expected<bool> create_kubevirt_cr(object_store& store, kubevirt_version v, const nlohmann::json& migrations);

/// `defaults` overlaid with the CR's spec.configuration.migrations, field by field, as
/// setConfigFromKubeVirt unmarshals the CR over defaultClusterConfig. An error names the
/// first field of the wrong type or value.
expected<migration_config> parse_migration_config(const nlohmann::json& kubevirt, migration_config defaults);

/// pkg/virt-config/configuration.go GetConfigFromKubeVirtCR: the CR KubeVirt configures
/// itself from is one in its own namespace with a status.phase and no deletionTimestamp.
/// nullopt when there is none (or the store does not serve the type).
std::optional<nlohmann::json> find_kubevirt_cr(const object_store& store);

/// ClusterConfig.GetConfig as a stateful reader: the CR parsed over the defaults; an
/// invalid CR (or none) keeps the last valid configuration, which starts as `initial`.
class migration_config_reader {
public:
  migration_config_reader(kubevirt_version v, migration_config initial)
    : defaults_(default_migration_config(v)), last_valid_(initial) {}

  const migration_config& read(const object_store& store);

private:
  migration_config defaults_;
  migration_config last_valid_;
  std::string last_resource_version_;
};

} // namespace schedopt::sim
