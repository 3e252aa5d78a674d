// The podHyperconvergence rows: the same descriptions, defaults and checks they had as
// core settings, so flags, variables, file keys and error texts did not change.
#include "actors/kinds/pod_hyperconvergence/pod_settings.hpp"

#include "config/value_parsers.hpp"
#include "model/kinds/pod_hyperconvergence/pod_spec.hpp"

namespace schedopt::pod_hyperconvergence {

namespace {

const std::string schedulers_key = "storageAwareSchedulers";
const std::string ready_timeout_key = "podReadyTimeout";
const std::string evictions_key = "maxParallelEvictions";
const std::string evictions_limit_key = "maxParallelEvictionsLimit";

pod_settings read(const kind_setting_values& values);

std::string check_combination(const kind_setting_values& values,
                              const std::function<std::string(const std::string&)>& source_of) {
  auto named = [&](const std::string& key) { return key + " (" + source_of(key) + ")"; };
  auto s = read(values);
  if (s.max_parallel_evictions > s.max_parallel_evictions_limit)
    return named(evictions_key) + " " + std::to_string(s.max_parallel_evictions) + " exceeds "
           + named(evictions_limit_key) + " " + std::to_string(s.max_parallel_evictions_limit);
  return {};
}

const kind_settings_table& table() {
  static const kind_settings_table t{
    kind_field,
    {
      {schedulers_key, "LIST", "stork",
       "schedulers that place a pod on a node holding its volumes' replicas; pods of any "
       "other are skipped SchedulerNotStorageAware, comma-separated",
       [](const std::string& text) {
         return config_detail::parse_list(text).empty()
                  ? std::string("must name at least one scheduler")
                  : std::string();
       }},
      {ready_timeout_key, "DURATION", "10m",
       "an evicted pod whose replacement is not Ready this long after the eviction is "
       "counted failed (ReplacementNotReady)",
       positive_duration()},
      {evictions_key, "INT", "5",
       "default bound on evicted pods whose replacement is not yet Ready, per request "
       "(spec overrides)",
       int_at_least(1)},
      {evictions_limit_key, "INT", "50", "upper clamp for any maxParallelEvictions",
       int_at_least(1)},
    },
    check_combination,
  };
  return t;
}

pod_settings read(const kind_setting_values& values) {
  auto text = [&](const std::string& key) { return kind_value_text(values, table(), key); };
  pod_settings out;
  out.storage_aware_schedulers = config_detail::parse_list(text(schedulers_key));
  config_detail::parse_duration(text(ready_timeout_key), out.pod_ready_timeout);
  config_detail::parse_int(text(evictions_key), out.max_parallel_evictions);
  config_detail::parse_int(text(evictions_limit_key), out.max_parallel_evictions_limit);
  return out;
}

} // namespace

kind_settings_table pod_settings_table() {
  return table();
}

pod_settings pod_settings_of(const settings& s) {
  return read(s.kind_values);
}

} // namespace schedopt::pod_hyperconvergence
