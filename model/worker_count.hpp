// How many CAF worker threads schedopt runs: the CPUs its container may use (cgroup v2
// cpu.max), else the host's cores, unless the workers setting names a number. More
// workers than granted CPUs only adds CFS throttling and per-worker decoder buffers.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace schedopt {

/// CPUs granted by a cgroup v2 `cpu.max` ("<quota> <period>", both in µs): the quota over
/// the period rounded up, at least 1. nullopt for "max <period>" (no limit) and for text
/// that is not a cpu.max line.
std::optional<unsigned> cpu_max_cores(std::string_view cpu_max);

/// `configured` when > 0; else the quota's CPUs capped by the host's (a quota above the
/// host cannot be used); else the host's cores; always at least 1. `host_cores` 0 means
/// unknown (std::thread::hardware_concurrency may say so).
unsigned worker_count(int64_t configured, std::optional<unsigned> quota_cores,
                      unsigned host_cores);

} // namespace schedopt
