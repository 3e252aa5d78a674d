// glibc malloc tuned for generating a big scenario.
//
// glibc's per-thread cache keeps 7 freed blocks per size class by default. Building
// 100,000 VMIs with their PVCs, PVs and VMs as JSON trees allocates and frees millions of
// small blocks, and with 7 slots most of them go through the arena's bins: half of the
// start-up time was in malloc. 4,096 slots halve the time to `ready` (100,000 VMIs: 48.8
// -> 23.6 s) at the same peak RSS. The tunable is read only when a process starts, so the
// simulator re-executes itself once with it set.
#pragma once

namespace schedopt::sim {

/// Re-executes this program with glibc.malloc.tcache_count=4096 added to GLIBC_TUNABLES,
/// unless GLIBC_TUNABLES already sets tcache_count (the user's choice, or this is the
/// re-executed process). Returns only when it did not re-execute.
void reexec_with_malloc_tunables(char** argv);

} // namespace schedopt::sim
