// csi-topology: replicated local-storage CSI drivers publish where a volume's replicas
// live as the PV's node affinity (kubernetes.io/hostname In [...]); no I/O needed.
#include <algorithm>

#include <caf/typed_event_based_actor.hpp>

#include "actors/drivers/storage_drivers.hpp"

namespace schedopt {

namespace {

bool csi_topology_owns(const persistent_volume& pv, const settings& cfg) {
  if (affinity_hostnames_of(pv).empty())
    return false;
  auto& names = cfg.csi_topology_drivers;
  return names.empty() || std::find(names.begin(), names.end(), pv.csi_driver) != names.end();
}

storage_driver_actor::behavior_type csi_topology_driver() {
  return {
    [](const replica_query& q) {
      replica_answer answer;
      for (auto& pv : q.volumes)
        answer.replicas.emplace(pv->metadata.name,
                                replica_nodes(affinity_hostnames_of(*pv).begin(),
                                              affinity_hostnames_of(*pv).end()));
      return answer;
    },
    [](const http_completion&) {},
  };
}

} // namespace

storage_driver_entry csi_topology_driver_entry() {
  return {"csi-topology", csi_topology_owns,
          [](caf::actor_system& sys, const settings&) -> caf::expected<storage_driver_actor> {
            return sys.spawn(csi_topology_driver);
          }};
}

} // namespace schedopt
