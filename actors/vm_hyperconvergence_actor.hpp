// The vmHyperconvergence optimization kind (docs/design.md §2–§3): evaluate every running VMI,
// then run the eligible candidates through the supervisor, one candidate actor each.
#pragma once

#include "actors/controller_context.hpp"

namespace schedopt {

vm_hyperconvergence_actor spawn_vm_hyperconvergence(caf::local_actor* parent,
                                                    const controller_context& ctx);

} // namespace schedopt
