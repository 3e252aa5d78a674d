// Read on every use, not cached: the CR is patchable live and virt-controller follows it.
#include "sim/kubevirt_cr_settings.hpp"

#include <nlohmann/json.hpp>

#include "sim/object_store.hpp"

namespace schedopt::sim {

namespace {

constexpr const char* kubevirt_cr_key = "kubevirts.kubevirt.io";

} // namespace

kubevirt_cr_settings read_kubevirt_cr_settings(const object_store& store, kubevirt_cr_settings fallback) {
  if (!store.find_type(kubevirt_cr_key))
    return fallback;
  nlohmann::json cr;
  if (auto found = store.get(kubevirt_cr_key, "kubevirt", "kubevirt"))
    cr = std::move(*found);
  else if (auto all = store.list(kubevirt_cr_key).items; !all.empty())
    cr = std::move(all.front());
  else
    return fallback;
  auto config = cr.value("/spec/configuration"_json_pointer, nlohmann::json::object());
  auto migrations = config.value("migrations", nlohmann::json::object());
  auto positive = [&](const char* key, int& target) {
    auto it = migrations.find(key);
    if (it != migrations.end() && it->is_number_integer() && it->get<long long>() > 0)
      target = static_cast<int>(it->get<long long>());
  };
  positive("parallelMigrationsPerCluster", fallback.parallel_migrations_per_cluster);
  positive("parallelOutboundMigrationsPerNode", fallback.parallel_outbound_migrations_per_node);
  if (auto it = config.find("evictionStrategy"); it != config.end() && it->is_string() && !it->get<std::string>().empty())
    fallback.eviction_strategy = it->get<std::string>();
  return fallback;
}

} // namespace schedopt::sim
