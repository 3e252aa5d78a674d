// One actor per running SchedulingOptimization: promotes it (Evaluating), runs each
// enabled optimization kind, and writes the terminal outcome (docs/design.md §1.4, §1.5).
#pragma once

#include <vector>

#include "actors/controller_context.hpp"
#include "actors/optimization_kinds.hpp"

namespace schedopt {

/// `kinds`: the registry the request runs (tests pass kinds of their own).
request_actor spawn_request(caf::local_actor* parent, const controller_context& ctx,
                            scheduling_optimization request, bool resume,
                            const std::vector<optimization_kind>& kinds = optimization_kinds());

} // namespace schedopt
