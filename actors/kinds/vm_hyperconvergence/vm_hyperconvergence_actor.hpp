// The vmHyperconvergence optimization kind (docs/design.md §2–§3): evaluate every running VMI,
// then run the eligible candidates through the supervisor, one candidate actor each.
#pragma once

#include <caf/actor_system_config.hpp>

#include "actors/controller_context.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_actors.hpp"

namespace schedopt {

/// Registers the kind's messages (vm_type_ids.hpp) with an actor system's configuration.
void add_vm_hyperconvergence_types(caf::actor_system_config& cfg);

vm_hyperconvergence_actor spawn_vm_hyperconvergence(caf::local_actor* parent,
                                                    const controller_context& ctx);

} // namespace schedopt
