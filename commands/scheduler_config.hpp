// The CAF scheduler the schedopt commands run on.
#pragma once

#include <cstdint>

#include <caf/actor_system_config.hpp>

namespace schedopt {

/// Work sharing instead of CAF's default work stealing: a controller is idle most of the
/// time (waiting on watches and migrations), and work-stealing workers poll with short
/// sleeps while idle, which kept a sizeable share of a core busy with nothing to do.
/// Sharing workers block on a condition variable; the actors' throughput is unchanged at
/// this load (tens of messages per migration).
/// Workers: `workers_setting` when > 0, else the cgroup v2 CPU quota (/sys/fs/cgroup/
/// cpu.max, rounded up), else the host's cores (model/worker_count.hpp). Returns the count.
unsigned use_work_sharing_scheduler(caf::actor_system_config& cfg, int64_t workers_setting = 0);

} // namespace schedopt
