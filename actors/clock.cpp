// See clock.hpp. The anchor is taken once per process: system time at the moment the
// actor clock first read as `anchor_steady`.
#include "actors/clock.hpp"

#include <caf/actor_system.hpp>

namespace schedopt {

timestamp actor_now(caf::local_actor* self) {
  static const auto anchor_wall = std::chrono::system_clock::now();
  static const auto anchor_steady = self->clock().now();
  auto elapsed = self->clock().now() - anchor_steady;
  return anchor_wall + std::chrono::duration_cast<std::chrono::system_clock::duration>(elapsed);
}

} // namespace schedopt
