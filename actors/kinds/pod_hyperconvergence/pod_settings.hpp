// podHyperconvergence's own cluster settings (docs/design.md §9): its rows of the settings
// table, handed to config through the kind's registry entry
// (actors/kinds/optimization_kinds.cpp), and the typed values the kind reads.
// coolOffPeriod, minCoolOffPeriod, maxNonHyperconvergedPerRun, maxRunDuration and
// excludeNamespaces serve both kinds and stay core settings (config/settings.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/settings.hpp"
#include "model/duration.hpp"

namespace schedopt::pod_hyperconvergence {

struct pod_settings {
  /// storageAwareSchedulers: schedulers that place a pod on a node holding its volumes'
  /// replicas; only their pods are evicted (another scheduler's replacement could land
  /// anywhere).
  std::vector<std::string> storage_aware_schedulers;
  /// podReadyTimeout: an evicted pod's replacement not Ready this long after the eviction
  /// is Failed ReplacementNotReady.
  duration pod_ready_timeout{};
  int64_t max_parallel_evictions = 0;       // maxParallelEvictions, a request's default
  int64_t max_parallel_evictions_limit = 0; // maxParallelEvictionsLimit, its upper clamp
};

/// The kind's rows (storageAwareSchedulers, podReadyTimeout, maxParallelEvictions,
/// maxParallelEvictionsLimit) and their cross-check (maxParallelEvictions may not exceed
/// maxParallelEvictionsLimit).
kind_settings_table pod_settings_table();

/// The kind's values in `s` (parse_command_line validated them), each row's default where
/// `s` holds none.
pod_settings pod_settings_of(const settings& s);

} // namespace schedopt::pod_hyperconvergence
