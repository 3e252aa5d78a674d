// The CAF scheduler the schedopt commands run on.
#pragma once

#include <caf/actor_system_config.hpp>

namespace schedopt {

/// Work sharing instead of CAF's default work stealing: a controller is idle most of the
/// time (waiting on watches and migrations), and work-stealing workers poll with short
/// sleeps while idle, which cost ~17 % of a core on a 2-core machine with nothing to do.
/// Sharing workers block on a condition variable; the actors' throughput is unchanged at
/// this load (tens of messages per migration).
void use_work_sharing_scheduler(caf::actor_system_config& cfg);

} // namespace schedopt
