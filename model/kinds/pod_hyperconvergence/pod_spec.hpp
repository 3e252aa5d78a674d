// spec.podHyperconvergence {enabled, coolOffPeriod, maxParallelEvictions} (docs/design.md
// §9): decoded with the VM kind's rules (a field of the wrong type fails the request with
// its path, not the informer), and turned into a run's settings with the VM kind's
// floors: coolOffPeriod from the spec else the cluster default, never below
// minCoolOffPeriod (Warning CoolOffClamped); maxParallelEvictions from the spec else
// the cluster default, clamped to [1, limit] (Warning ParallelismClamped).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "model/decode_reader.hpp"
#include "model/duration.hpp"
#include "model/error.hpp"
#include "model/objects.hpp"

namespace schedopt::pod_hyperconvergence {

/// The kind's field under spec and status.
constexpr const char* kind_field = "podHyperconvergence";

struct pod_hyperconvergence_spec {
  bool enabled = false;
  std::optional<std::string> cool_off_period; // Go duration, validated by choose_run_settings
  std::optional<int64_t> max_parallel_evictions;
};

/// Reads the fragment (the object under spec.podHyperconvergence); errors name the
/// fragment's path as the reader tracks it.
void read_spec(detail::decode_reader& r, const detail::json_object& fragment,
               pod_hyperconvergence_spec& out);

/// Decodes the fragment's JSON; errors are worded under `path`
/// (`spec.podHyperconvergence.enabled: expected boolean, got string`).
expected<pod_hyperconvergence_spec> decode_spec(std::string_view fragment,
                                                const std::string& path = "spec.podHyperconvergence");

/// The fragment as the CRD has it (unset fields omitted).
nlohmann::json to_json(const pod_hyperconvergence_spec& spec);

/// The fragment `schedopt explain` evaluates with, given the next request's: enabled, with
/// that request's coolOffPeriod alone (nothing when the fragment does not decode).
kind_spec explain_spec(const kind_spec& next);

/// The cluster settings the spec falls back on (docs/design.md §5; the VM kind's
/// coolOffPeriod and minCoolOffPeriod, maxParallelEvictions default 5).
struct cluster_defaults {
  duration cool_off_period = std::chrono::hours(1);
  duration min_cool_off_period = std::chrono::minutes(5);
  int64_t max_parallel_evictions = 5;
  int64_t max_parallel_evictions_limit = 50;
};

struct run_settings {
  duration cool_off{};
  int64_t max_parallel_evictions = 5;
  /// Non-empty when the request asked for less than minCoolOffPeriod: the Warning
  /// CoolOffClamped says so.
  std::string cool_off_clamped;
  /// Non-empty when maxParallelEvictions was out of range: the Warning
  /// ParallelismClamped ("maxParallelEvictions 500 clamped to 50").
  std::string parallelism_clamped;
  /// Non-empty when the spec cannot be run: the kind fails with it
  /// (`invalid spec.podHyperconvergence.coolOffPeriod "abc": ...`).
  std::string error;
};

run_settings choose_run_settings(const pod_hyperconvergence_spec& spec,
                                 const cluster_defaults& defaults);

} // namespace schedopt::pod_hyperconvergence
