// One actor per running SchedulingOptimization: promotes it (Evaluating), runs each
// enabled optimization kind, and writes the terminal outcome (docs/design.md §1.4, §1.5).
#pragma once

#include "actors/controller_context.hpp"

namespace schedopt {

request_actor spawn_request(caf::local_actor* parent, const controller_context& ctx,
                            scheduling_optimization request, bool resume);

} // namespace schedopt
