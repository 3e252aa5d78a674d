// The owner of a controller stack's long-lived actors (docs/design.md §4.2 shutdown): one
// actor linked to all of them, so a stop reaches every one in a fixed order and none is
// left running on its timers when the owner goes.
#pragma once

#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "actors/actors.hpp"

namespace schedopt {

/// One actor the owner holds, with the name its end is logged under.
struct owned_actor {
  std::string name;
  caf::actor handle;
};

/// Links to every actor of `in_stop_order`. On atom::stop, or when the owner is sent an
/// exit, it sends each an exit in that order and quits. An owned actor that ends by
/// itself is logged and dropped; the others go on, as they would without an owner.
stack_owner_actor spawn_stack_owner(caf::actor_system& sys,
                                    std::vector<owned_actor> in_stop_order);

} // namespace schedopt
