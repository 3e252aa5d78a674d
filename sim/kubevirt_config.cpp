// KubeVirt's CR as served, and its migration configuration read back as virt-config does.
#include "sim/kubevirt_config.hpp"

#include <limits>

#include <spdlog/spdlog.h>

#include "model/quantity.hpp"
#include "sim/object_store.hpp"
#include "sim/scenario_objects.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

migration_config default_migration_config(kubevirt_version v) {
  // pkg/virt-config/virt-config.go: MigrationCompletionTimeoutPerGiB was 800 up to 1.3.
  migration_config c;
  c.completion_timeout_per_gib = v.minor <= 3 ? 800 : 150;
  return c;
}

json kubevirt_cr(kubevirt_version v, const json& migrations) {
  // The operator reports the release it deployed as "v1.<minor>.0" in both version fields
  // (pkg/virt-operator/kubevirt.go sets them from the install strategy's version).
  auto release = "v" + v.text() + ".0";
  return {{"apiVersion", "kubevirt.io/v1"},
          {"kind", "KubeVirt"},
          {"metadata", {{"name", kubevirt_cr_name}, {"namespace", kubevirt_cr_namespace}}},
          {"spec", {{"configuration", {{"migrations", migrations}}}}},
          {"status",
           {{"phase", "Deployed"}, {"observedKubeVirtVersion", release}, {"targetKubeVirtVersion", release}}}};
}

expected<bool> create_kubevirt_cr(object_store& store, kubevirt_version v, const json& migrations) {
  if (!store.get("namespaces", "", kubevirt_cr_namespace))
    if (auto made = store.create("namespaces", namespace_object(kubevirt_cr_namespace)); !made)
      return made.err();
  auto cr = kubevirt_cr(v, migrations);
  auto status = cr["status"];
  if (auto made = store.create(kubevirt_cr_key, cr); !made)
    return made.err();
  // Like any custom resource with a status subresource, create drops status; the
  // operator writes it through /status.
  auto written = store.modify(
      kubevirt_cr_key, kubevirt_cr_namespace, kubevirt_cr_name,
      [&](json& obj) {
        obj["status"] = status;
        return true;
      },
      true);
  if (!written)
    return written.err();
  return true;
}

namespace {

/// encoding/json into *uint32 / *int64: a JSON integer in range, else an error.
expected<int64_t> integer_field(const json& j, const char* name, int64_t min, int64_t max) {
  if (!j.is_number_integer() && !j.is_number_unsigned())
    return make_error(ec::invalid_value, std::string{"spec.configuration.migrations."} + name + ": not an integer");
  if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(max))
    return make_error(ec::invalid_value, std::string{"spec.configuration.migrations."} + name + ": out of range");
  auto v = j.get<int64_t>();
  if (v < min || v > max)
    return make_error(ec::invalid_value, std::string{"spec.configuration.migrations."} + name + ": out of range");
  return v;
}

} // namespace

expected<migration_config> parse_migration_config(const json& kubevirt, migration_config defaults) {
  auto m = kubevirt.value("/spec/configuration/migrations"_json_pointer, json::object());
  if (m.is_null())
    return defaults;
  if (!m.is_object())
    return make_error(ec::invalid_value, "spec.configuration.migrations: not an object");
  auto c = defaults;
  constexpr int64_t u32 = std::numeric_limits<uint32_t>::max();
  constexpr int64_t i64 = std::numeric_limits<int64_t>::max();
  auto set_int = [&](const char* name, auto& field, int64_t min, int64_t max) -> expected<bool> {
    auto it = m.find(name);
    if (it == m.end() || it->is_null())
      return true; // absent: the default stays, as json.Unmarshal leaves the field alone
    auto v = integer_field(*it, name, min, max);
    if (!v)
      return v.err();
    field = static_cast<std::decay_t<decltype(field)>>(*v);
    return true;
  };
  for (auto r : {set_int("parallelMigrationsPerCluster", c.parallel_migrations_per_cluster, 0, u32),
                 set_int("parallelOutboundMigrationsPerNode", c.parallel_outbound_migrations_per_node, 0, u32),
                 set_int("progressTimeout", c.progress_timeout, std::numeric_limits<int64_t>::min(), i64),
                 set_int("completionTimeoutPerGiB", c.completion_timeout_per_gib,
                         std::numeric_limits<int64_t>::min(), i64)})
    if (!r)
      return r.err();
  if (auto it = m.find("bandwidthPerMigration"); it != m.end() && !it->is_null()) {
    // resource.Quantity's UnmarshalJSON takes a quoted quantity or a bare number.
    auto text = it->is_string() ? it->get<std::string>() : it->is_number() ? it->dump() : std::string{};
    auto bytes = parse_quantity(text);
    if (!bytes)
      return make_error(ec::invalid_value, "spec.configuration.migrations.bandwidthPerMigration: not a quantity");
    c.bandwidth_per_migration = *bytes;
  }
  return c;
}

std::optional<json> find_kubevirt_cr(const object_store& store) {
  if (!store.find_type(kubevirt_cr_key))
    return std::nullopt;
  std::optional<json> found;
  for (auto& kv : store.list(kubevirt_cr_key, kubevirt_cr_namespace).items) {
    bool deleting = kv.contains("metadata") && kv["metadata"].contains("deletionTimestamp")
                    && !kv["metadata"]["deletionTimestamp"].is_null();
    if (!deleting && !kv.value("/status/phase"_json_pointer, std::string{}).empty())
      found = std::move(kv); // upstream keeps the last one listed
  }
  return found;
}

const migration_config& migration_config_reader::read(const object_store& store) {
  auto cr = find_kubevirt_cr(store);
  if (!cr)
    return last_valid_;
  auto rv = cr->value("/metadata/resourceVersion"_json_pointer, std::string{});
  if (rv == last_resource_version_)
    return last_valid_; // parsed already, valid or not
  last_resource_version_ = rv;
  auto parsed = parse_migration_config(*cr, defaults_);
  if (!parsed) {
    spdlog::warn("kubevirt: invalid cluster config in KubeVirt resource version {}, keeping the last valid one: {}",
                 rv, parsed.err().message);
    return last_valid_;
  }
  last_valid_ = *parsed;
  return last_valid_;
}

} // namespace schedopt::sim
