// See scheduler_config.hpp.
#include "actors/commands/scheduler_config.hpp"

#include <caf/atom.hpp>

namespace schedopt {

void use_work_sharing_scheduler(caf::actor_system_config& cfg) {
  cfg.set("scheduler.policy", caf::atom("sharing"));
}

} // namespace schedopt
