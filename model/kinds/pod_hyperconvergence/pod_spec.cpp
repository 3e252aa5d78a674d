#include "model/kinds/pod_hyperconvergence/pod_spec.hpp"

#include <nlohmann/json.hpp>

#include "model/placement/parallelism.hpp"
#include "model/reason.hpp"
#include "model/placement/run_floors.hpp"

namespace schedopt::pod_hyperconvergence {

using detail::decode_reader;
using detail::json_object;

void read_spec(decode_reader& r, const json_object& fragment, pod_hyperconvergence_spec& out) {
  r.read(fragment, "enabled", out.enabled);
  r.read(fragment, "coolOffPeriod", out.cool_off_period);
  r.read(fragment, "maxParallelEvictions", out.max_parallel_evictions);
}

expected<pod_hyperconvergence_spec> decode_spec(std::string_view fragment,
                                                const std::string& path) {
  decode_reader r;
  auto root = r.parse_root(fragment);
  if (!r.ok()) {
    // The reader names the document "(document)"; here it is the spec's field.
    auto e = r.failure();
    const std::string doc = "(document)";
    if (e.message.compare(0, doc.size(), doc) == 0)
      e.message.replace(0, doc.size(), path);
    return e;
  }
  root.path = path;
  pod_hyperconvergence_spec out;
  read_spec(r, root, out);
  if (!r.ok())
    return r.failure();
  return out;
}

nlohmann::json to_json(const pod_hyperconvergence_spec& spec) {
  nlohmann::json j{{"enabled", spec.enabled}};
  if (spec.cool_off_period)
    j["coolOffPeriod"] = *spec.cool_off_period;
  if (spec.max_parallel_evictions)
    j["maxParallelEvictions"] = *spec.max_parallel_evictions;
  return j;
}

run_settings choose_run_settings(const pod_hyperconvergence_spec& spec,
                                 const cluster_defaults& defaults) {
  run_settings out;
  // The floor, the parse and their wording are every kind's (placement/run_floors.hpp).
  auto cool_off = choose_cool_off(spec.cool_off_period, defaults.cool_off_period,
                                  defaults.min_cool_off_period, kind_field);
  if (!cool_off.error.empty()) {
    out.error = std::move(cool_off.error);
    return out;
  }
  out.cool_off = cool_off.effective;
  out.cool_off_clamped = std::move(cool_off.clamped);
  auto parallel = clamp_parallelism(spec.max_parallel_evictions, defaults.max_parallel_evictions,
                                    defaults.max_parallel_evictions_limit);
  out.max_parallel_evictions = parallel.effective;
  if (parallel.clamped)
    out.parallelism_clamped =
      "maxParallelEvictions "
      + std::to_string(spec.max_parallel_evictions.value_or(defaults.max_parallel_evictions))
      + " clamped to " + std::to_string(parallel.effective);
  return out;
}

kind_spec explain_spec(const kind_spec& next) {
  pod_hyperconvergence_spec spec{true, std::nullopt, std::nullopt};
  if (auto read = decode_spec(next.json))
    spec.cool_off_period = read->cool_off_period;
  return kind_spec{true, to_json(spec).dump()};
}

} // namespace schedopt::pod_hyperconvergence
