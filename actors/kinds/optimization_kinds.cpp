// Every optimization kind schedopt serves, one line each, in the order a request runs
// them: the one file outside a kind's folders that names it. A kind's CAF type-ID block
// takes the slot of its line (actors/type_ids.hpp kind_type_id_base).
#include "actors/optimization_kinds.hpp"

#include "actors/kinds/pod_hyperconvergence/pod_hyperconvergence_actor.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_informers.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_settings.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_hyperconvergence_actor.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_services.hpp"
#include "model/kinds/pod_hyperconvergence/pod_spec.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"

namespace schedopt {

const std::vector<optimization_kind>& optimization_kinds() {
  static const std::vector<optimization_kind> kinds{
    // name, spawn, add_message_types, start_services, settings_table, explain_spec
    {vm_hyperconvergence_kind, spawn_vm_hyperconvergence, add_vm_hyperconvergence_types,
     start_vm_services, nullptr, vm_hyperconvergence_explain_spec},
    {pod_hyperconvergence::kind_field, spawn_pod_hyperconvergence,
     add_pod_hyperconvergence_types, start_pod_informers,
     pod_hyperconvergence::pod_settings_table, pod_hyperconvergence::explain_spec},
  };
  return kinds;
}

std::vector<kind_settings_table> kind_settings_tables() {
  std::vector<kind_settings_table> out;
  for (const auto& kind : optimization_kinds())
    if (kind.settings_table)
      out.push_back(kind.settings_table());
  return out;
}

const optimization_kind* find_optimization_kind(const std::string& name) {
  if (name.empty())
    return &optimization_kinds().front();
  for (const auto& kind : optimization_kinds())
    if (kind.name == name)
      return &kind;
  return nullptr;
}

} // namespace schedopt
