// Reads spec.vmHyperconvergence with the request decoder's reader, so its errors carry
// the same paths and wording.
#include "model/kinds/vm_hyperconvergence/spec.hpp"

#include <nlohmann/json.hpp>

#include "model/decode_reader.hpp"

namespace schedopt {

expected<vm_hyperconvergence_spec> decode_vm_hyperconvergence_spec(const kind_spec& fragment) {
  detail::decode_reader r;
  auto root = r.parse_root(fragment.json);
  root.path = "spec." + vm_hyperconvergence_kind;
  vm_hyperconvergence_spec out;
  out.enabled = fragment.enabled;
  r.read(root, "coolOffPeriod", out.cool_off_period);
  r.read(root, "maxParallelMigrations", out.max_parallel_migrations);
  if (!r.ok())
    return r.failure();
  return out;
}

kind_spec to_kind_spec(const vm_hyperconvergence_spec& spec) {
  nlohmann::json j{{"enabled", spec.enabled}};
  if (spec.cool_off_period)
    j["coolOffPeriod"] = *spec.cool_off_period;
  if (spec.max_parallel_migrations)
    j["maxParallelMigrations"] = *spec.max_parallel_migrations;
  return kind_spec{spec.enabled, j.dump()};
}

kind_spec vm_hyperconvergence_explain_spec(const kind_spec& next) {
  vm_hyperconvergence_spec spec{true, std::nullopt, std::nullopt};
  if (auto read = decode_vm_hyperconvergence_spec(next))
    spec.cool_off_period = read->cool_off_period;
  return to_kind_spec(spec);
}

} // namespace schedopt
