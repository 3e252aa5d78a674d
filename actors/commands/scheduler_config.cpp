// See scheduler_config.hpp.
#include "actors/commands/scheduler_config.hpp"

#include <algorithm>
#include <thread>

#include <caf/atom.hpp>

namespace schedopt {

void use_work_sharing_scheduler(caf::actor_system_config& cfg) {
  cfg.set("scheduler.policy", caf::atom("sharing"));
  // One worker per core (CAF's default is at least 4): nothing in schedopt blocks a worker,
  // and each worker keeps its own decoder buffers (simdjson), sized by the largest page.
  auto cores = std::max(2u, std::thread::hardware_concurrency());
  cfg.set("scheduler.max-threads", static_cast<size_t>(cores));
}

} // namespace schedopt
