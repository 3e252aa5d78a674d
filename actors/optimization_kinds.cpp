// Every optimization kind schedopt serves.
#include "actors/optimization_kinds.hpp"

#include "actors/vm_hyperconvergence_actor.hpp"

namespace schedopt {

const std::vector<optimization_kind>& optimization_kinds() {
  static const std::vector<optimization_kind> kinds{
    {"vmHyperconvergence",
     [](const scheduling_optimization_spec& spec) -> std::optional<bool> {
       if (!spec.vm_hyperconvergence)
         return std::nullopt;
       return spec.vm_hyperconvergence->enabled;
     },
     spawn_vm_hyperconvergence},
  };
  return kinds;
}

} // namespace schedopt
