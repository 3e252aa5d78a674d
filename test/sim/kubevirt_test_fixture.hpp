// Shared helpers for the world tests: a populated in-process store and small lookups.
#pragma once

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/kubevirt_admission.hpp"
#include "sim/kubevirt_names.hpp"
#include "sim/longhorn.hpp"
#include "sim/object_store.hpp"
#include "sim/scenario.hpp"
#include "sim/storage_backend.hpp"
#include "sim/world_types.hpp"

namespace schedopt::sim::testing {

using json = nlohmann::json;

/// A store holding a scenario, with KubeVirt's admission installed.
/// The KubeVirt CR's type, which serve installs from its CRD.
inline void serve_kubevirt_type(object_store& store) {
  store.register_type({"kubevirt.io", "v1", "KubeVirt", "kubevirts", "kubevirt", "KubeVirtList", true, true,
                       {"kv", "kvs"}, {"all"}, ""});
}

struct populated_store {
  object_store store;
  storage_backend storage;
  scenario_options options;

  explicit populated_store(scenario_options o) : options(std::move(o)) {
    register_world_types(store);
    store.set_admission(kubevirt::vmim_key, make_migration_admission(store, options.kubevirt));
    populate(store, storage, options);
  }

  std::vector<json> vmis() { return store.list(kubevirt::vmi_key).items; }
  std::vector<json> vmims() { return store.list(kubevirt::vmim_key).items; }

  json vmi(const std::string& ns, const std::string& name) { return *store.get(kubevirt::vmi_key, ns, name); }

  expected<json> migrate(const json& vmi, json selector = nullptr) {
    json m = {{"apiVersion", "kubevirt.io/v1"},
              {"kind", "VirtualMachineInstanceMigration"},
              {"metadata", {{"generateName", vmi["metadata"]["name"].get<std::string>() + "-mig-"},
                            {"namespace", vmi["metadata"]["namespace"]}}},
              {"spec", {{"vmiName", vmi["metadata"]["name"]}}}};
    if (!selector.is_null())
      m["spec"]["addedNodeSelector"] = selector;
    return store.create(kubevirt::vmim_key, m);
  }

  json vmim(const json& created) {
    auto got = store.get(kubevirt::vmim_key, created["metadata"]["namespace"], created["metadata"]["name"]);
    return got ? *got : json{};
  }
};

inline std::string phase_of(const json& m) {
  return m.is_object() ? m.value("/status/phase"_json_pointer, std::string{}) : std::string{};
}

/// Replica nodes of every driver volume of `vmi`, via PVC -> PV -> storage backend.
inline std::vector<std::set<std::string>> replica_sets_of(object_store& store, storage_backend& storage,
                                                          const json& vmi) {
  std::vector<std::set<std::string>> out;
  for (const auto& v : vmi["spec"]["volumes"]) {
    std::string claim;
    if (v.contains("persistentVolumeClaim"))
      claim = v["persistentVolumeClaim"]["claimName"];
    else if (v.contains("dataVolume"))
      claim = v["dataVolume"]["name"];
    else
      continue;
    auto pvc = store.get("persistentvolumeclaims", vmi["metadata"]["namespace"], claim);
    if (!pvc)
      continue;
    auto pv = store.get("persistentvolumes", "", (*pvc)["spec"]["volumeName"]);
    if (!pv)
      continue;
    auto driver = (*pv)["spec"]["csi"]["driver"].get<std::string>();
    if (driver == portworx_csi_driver) {
      auto vol = storage.volume((*pv)["spec"]["csi"]["volumeHandle"]);
      if (vol)
        out.emplace_back(vol->replica_nodes.begin(), vol->replica_nodes.end());
    } else if (driver == topology_csi_driver) {
      std::set<std::string> nodes;
      for (const auto& term : (*pv)["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"])
        for (const auto& e : term["matchExpressions"])
          if (e["key"] == "kubernetes.io/hostname" && e["operator"] == "In")
            for (const auto& n : e["values"])
              nodes.insert(n.get<std::string>());
      out.push_back(nodes);
    } else if (driver == longhorn_csi_driver) {
      auto nodes = longhorn_running_nodes(store, (*pv)["spec"]["csi"]["volumeHandle"]);
      out.emplace_back(nodes.begin(), nodes.end());
    }
  }
  return out;
}

/// docs/design.md §2.4 computed by hand: does `node` score below the best node?
inline bool scores_below_best(const std::vector<std::set<std::string>>& sets, const std::string& node) {
  std::map<std::string, int> score;
  for (const auto& s : sets)
    for (const auto& n : s)
      ++score[n];
  int best = 0;
  for (const auto& [n, s] : score)
    best = std::max(best, s);
  return score[node] < best;
}

} // namespace schedopt::sim::testing
