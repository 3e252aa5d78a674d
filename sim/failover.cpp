// Pool failover: replica moves, PV affinity updates, then the request object.
#include "sim/failover.hpp"

#include <algorithm>
#include <set>

#include "sim/longhorn.hpp"
#include "sim/object_store.hpp"
#include "sim/scenario_objects.hpp"
#include "sim/storage_backend.hpp"

namespace schedopt::sim {

namespace {

constexpr const char* request_key = "schedulingoptimizations.stork.libopenstorage.org";

std::string node_to_fail(const storage_backend& storage, std::mt19937_64& rng) {
  std::set<std::string> holders;
  for (const auto& v : storage.volumes())
    holders.insert(v.replica_nodes.begin(), v.replica_nodes.end());
  if (holders.empty())
    return {};
  std::vector<std::string> list{holders.begin(), holders.end()};
  return list[std::uniform_int_distribution<std::size_t>{0, list.size() - 1}(rng)];
}

} // namespace

expected<failover_result> fail_over_pool(object_store& store, storage_backend& storage,
                                         const std::string& requested, std::mt19937_64& rng) {
  auto node = requested.empty() ? node_to_fail(storage, rng) : requested;
  if (node.empty())
    return make_error(ec::invalid_request, "pool failover: no node holds any volume replica");
  auto storage_node = storage.node_by_name(node);
  if (!storage_node)
    return make_error(ec::not_found, "pool failover: node \"" + node + "\" is not a storage node");
  auto moves = storage.fail_over_node(node, rng);
  if (!moves)
    return moves.err();

  // Replicated local-storage drivers publish replica placement as PV node affinity.
  std::set<std::string> changed;
  for (const auto& m : *moves)
    changed.insert(m.volume_id);
  for (const auto& id : changed) {
    auto vol = storage.volume(id);
    if (!vol || vol->driver != topology_csi_driver)
      continue;
    auto nodes = vol->replica_nodes;
    std::sort(nodes.begin(), nodes.end());
    auto updated = store.modify("persistentvolumes", "", vol->pv_name, [&](json& pv) {
      pv["spec"]["nodeAffinity"] = topology_node_affinity(nodes);
      return true;
    });
    if (!updated)
      return make_error(updated.err().code, "pool failover: updating PV " + vol->pv_name + ": " + updated.err().message);
  }

  // Longhorn rebuilds each moved replica as a new Replica CR and retires the old one.
  if (auto rebuilt = rebuild_longhorn_replicas(store, *moves); !rebuilt)
    return make_error(rebuilt.err().code, "pool failover: " + rebuilt.err().message);

  json request = {
      {"apiVersion", "stork.libopenstorage.org/v1alpha1"},
      {"kind", "SchedulingOptimization"},
      {"metadata",
       {{"generateName", "pool-failover-"},
        {"labels", {{"app.kubernetes.io/created-by", "portworx"}, {"storage.libopenstorage.org/trigger", "pool-failover"}}},
        {"annotations", {{"storage.libopenstorage.org/failed-node", node},
                         {"storage.libopenstorage.org/failed-pool", storage_node->pool_uuid},
                         {"storage.libopenstorage.org/replicas-moved", std::to_string(moves->size())}}}}},
      {"spec", {{"vmHyperconvergence", {{"enabled", true}}}}}};
  // Stork asks for pods too when the cluster runs any (SPEC §9); a CRD without the
  // field prunes it.
  if (!store.list_stored("pods").items.empty())
    request["spec"]["podHyperconvergence"] = {{"enabled", true}};
  auto made = store.create(request_key, request);
  if (!made)
    return make_error(made.err().code, "pool failover: creating the SchedulingOptimization: " + made.err().message);
  return failover_result{node, moves->size(), (*made)["metadata"].value("name", "")};
}

} // namespace schedopt::sim
