// The controller root (docs/design.md §1.2): one request at a time, oldest first; the others are
// marked Pending; a deleted request is stopped. Queue order is model/request_queue.
#pragma once

#include "actors/controller_context.hpp"

namespace schedopt {

/// Spawns the controller; it does nothing until it receives atom::run (informers synced,
/// leadership held), then subscribes to the SchedulingOptimization informer.
controller_actor spawn_controller(caf::actor_system& sys, controller_context ctx,
                                  scheduling_optimization_informer_actor requests);

} // namespace schedopt
