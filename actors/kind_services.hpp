// What an optimization kind starts once per controller stack, for all of its runs: its
// own long-lived actors (the pod kind's informers, say) and the handles its runs reach
// them by. The stack starts them through the kind's registry entry
// (optimization_kind::start_services), so it names none of the kind's types.
#pragma once

#include <any>
#include <vector>

#include "actors/stack_owner_actor.hpp"

namespace schedopt {

struct kind_services {
  /// The kind's handles, read back by the kind alone (std::any_cast to its own struct)
  /// from controller_context::kind_handles under the kind's name.
  std::any handles;
  /// The actors behind them, handed to the stack owner in the order they stop.
  std::vector<owned_actor> actors;
};

} // namespace schedopt
