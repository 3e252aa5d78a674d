// Read on every use, not cached: the CR is patchable live and virt-controller follows it.
// Which CR counts and how its migrations block parses is sim/kubevirt_config's, shared
// with the migration loop.
#include "sim/kubevirt_cr_settings.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "sim/kubevirt_config.hpp"
#include "sim/object_store.hpp"

namespace schedopt::sim {

kubevirt_cr_settings read_kubevirt_cr_settings(const object_store& store, kubevirt_cr_settings fallback) {
  auto cr = find_kubevirt_cr(store);
  if (!cr)
    return fallback;
  migration_config caps;
  caps.parallel_migrations_per_cluster = fallback.parallel_migrations_per_cluster;
  caps.parallel_outbound_migrations_per_node = fallback.parallel_outbound_migrations_per_node;
  if (auto parsed = parse_migration_config(*cr, caps)) {
    fallback.parallel_migrations_per_cluster = parsed->parallel_migrations_per_cluster;
    fallback.parallel_outbound_migrations_per_node = parsed->parallel_outbound_migrations_per_node;
  }
  auto config = cr->value("/spec/configuration"_json_pointer, nlohmann::json::object());
  if (auto it = config.find("evictionStrategy"); it != config.end() && it->is_string() && !it->get<std::string>().empty())
    fallback.eviction_strategy = it->get<std::string>();
  for (const auto& gate : config.value("/developerConfiguration/featureGates"_json_pointer, nlohmann::json::array()))
    if (gate.is_string())
      fallback.feature_gates.push_back(gate.get<std::string>());
  return fallback;
}

bool kubevirt_cr_settings::lists_gate(const std::string& gate) const {
  return std::find(feature_gates.begin(), feature_gates.end(), gate) != feature_gates.end();
}

} // namespace schedopt::sim
