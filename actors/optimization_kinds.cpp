// Every optimization kind schedopt serves, one line each, in the order a request runs
// them.
#include "actors/optimization_kinds.hpp"

#include "actors/kinds/vm_hyperconvergence/vm_hyperconvergence_actor.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"

namespace schedopt {

const std::vector<optimization_kind>& optimization_kinds() {
  static const std::vector<optimization_kind> kinds{
    {vm_hyperconvergence_kind, spawn_vm_hyperconvergence, add_vm_hyperconvergence_types},
  };
  return kinds;
}

const optimization_kind* find_optimization_kind(const std::string& name) {
  for (const auto& kind : optimization_kinds())
    if (kind.name == name)
      return &kind;
  return nullptr;
}

} // namespace schedopt
