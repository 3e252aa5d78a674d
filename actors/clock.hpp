// Wall-clock time as an actor sees it: anchored to the actor system's clock so that
// deterministic tests (test_coordinator + advance_time) move status timestamps and
// cool-off windows too.
#pragma once

#include <caf/actor_clock.hpp>
#include <caf/local_actor.hpp>

#include "model/timestamp.hpp"

namespace schedopt {

timestamp actor_now(caf::local_actor* self);

/// std::chrono duration -> the clock's duration type for delayed_send.
inline caf::actor_clock::duration_type to_clock(std::chrono::nanoseconds d) {
  return std::chrono::duration_cast<caf::actor_clock::duration_type>(d);
}

} // namespace schedopt
