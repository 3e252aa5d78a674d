// Scenario generation: plan every VMI (volumes, replica nodes, placement) from one
// seeded generator, then create the objects. Only the store's own fields (uid,
// resourceVersion, creationTimestamp) and condition times differ between runs of a seed.
#include "sim/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

#include <spdlog/spdlog.h>

#include "model/timestamp.hpp"
#include "sim/kubevirt_names.hpp"
#include "sim/longhorn.hpp"
#include "sim/object_store.hpp"
#include "sim/scenario_constraints.hpp"
#include "sim/scenario_objects.hpp"
#include "sim/storage_backend.hpp"
#include "sim/world_types.hpp"

namespace schedopt::sim {

namespace {

constexpr const char* other_csi_driver = "nfs.csi.k8s.io";

std::string hex(std::mt19937_64& rng, int digits) {
  static const char* alphabet = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < digits; ++i)
    out += alphabet[rng() & 0xf];
  return out;
}

std::string uuid(std::mt19937_64& rng) {
  return hex(rng, 8) + "-" + hex(rng, 4) + "-4" + hex(rng, 3) + "-a" + hex(rng, 3) + "-" + hex(rng, 12);
}

/// Portworx volume ids are large decimal numbers.
std::string px_volume_id(std::mt19937_64& rng) {
  std::uniform_int_distribution<uint64_t> digits{100000000000000000ULL, 999999999999999999ULL};
  return std::to_string(digits(rng));
}

std::string numbered(const std::string& prefix, int i, int count) {
  int width = std::max(2, static_cast<int>(std::to_string(count).size()));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*d", width, i);
  return prefix + buf;
}

bool coin(std::mt19937_64& rng, double p) {
  return std::uniform_real_distribution<double>{0.0, 1.0}(rng) < p;
}

template <class T>
const T& pick(std::mt19937_64& rng, const std::vector<T>& from) {
  return from[std::uniform_int_distribution<std::size_t>{0, from.size() - 1}(rng)];
}

/// `count` indices out of [0, n), chosen by a seeded shuffle.
std::vector<bool> chosen(std::mt19937_64& rng, int n, double fraction) {
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i)
    order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  auto count = static_cast<int>(std::llround(fraction * n));
  std::vector<bool> out(n, false);
  for (int i = 0; i < count && i < n; ++i)
    out[order[i]] = true;
  return out;
}

scenario_options clamped(scenario_options o) {
  o.nodes = std::max(1, o.nodes);
  o.vmis = std::max(0, o.vmis);
  o.volumes_per_vmi = std::max(1, o.volumes_per_vmi);
  o.replicas = std::clamp(o.replicas, 1, o.nodes);
  o.misplaced = std::clamp(o.misplaced, 0.0, 1.0);
  o.not_migratable = std::clamp(o.not_migratable, 0.0, 1.0);
  return o;
}

/// Creates `object` with its status: a type with a status subresource drops .status
/// on create (as the API server does), so the status is written afterwards.
expected<json> create_with_status(object_store& store, const std::string& key, json object) {
  auto status = object.contains("status") ? object["status"] : json{};
  auto made = store.create(key, std::move(object));
  if (!made || status.is_null() || (made->contains("status") && (*made)["status"] == status))
    return made;
  auto type = store.find_type(key);
  bool status_only = type && type->status_subresource;
  return store.modify(
      key, (*made)["metadata"].value("namespace", ""), (*made)["metadata"].value("name", ""),
      [&](json& obj) {
        obj["status"] = status;
        return true;
      },
      status_only);
}

} // namespace

expected<bool> validate(const scenario_options& o) {
  auto bad = [](const std::string& what) { return make_error(ec::invalid_value, "scenario: " + what); };
  if (o.nodes < 1)
    return bad("nodes must be at least 1, got " + std::to_string(o.nodes));
  if (o.vmis < 0)
    return bad("vmis must not be negative, got " + std::to_string(o.vmis));
  if (o.volumes_per_vmi < 1)
    return bad("volumes per VMI must be at least 1, got " + std::to_string(o.volumes_per_vmi));
  if (o.replicas < 1 || o.replicas > o.nodes)
    return bad("replicas must be between 1 and the node count (" + std::to_string(o.nodes) + "), got " +
               std::to_string(o.replicas));
  auto fraction = [&](double v, const char* name) -> std::optional<error> {
    if (!(v >= 0.0 && v <= 1.0))
      return bad(std::string{name} + " must be a fraction in [0, 1], got " + std::to_string(v));
    return std::nullopt;
  };
  if (auto e = fraction(o.misplaced, "misplaced"))
    return *e;
  if (auto e = fraction(o.not_migratable, "not-migratable"))
    return *e;
  if (auto e = fraction(o.migration_failure_rate, "migration failure rate"))
    return *e;
  if (o.parallel_migrations_per_cluster < 1 || o.parallel_outbound_migrations_per_node < 1)
    return bad("parallel migration limits must be at least 1");
  if (o.driver != "portworx" && o.driver != "csi-topology" && o.driver != "longhorn")
    return bad("unknown driver \"" + o.driver + "\" (portworx, csi-topology, longhorn)");
  return true;
}

void populate(object_store& store, storage_backend& storage, const scenario_options& requested) {
  if (auto ok = validate(requested); !ok)
    spdlog::warn("{}; clamping", ok.err().message);
  auto o = clamped(requested);
  bool longhorn = o.driver == "longhorn";
  bool portworx = o.driver != "csi-topology" && !longhorn;
  auto driver = longhorn ? longhorn_csi_driver : portworx ? portworx_csi_driver : topology_csi_driver;
  auto storage_class = longhorn ? "longhorn" : portworx ? "px-csi-vm" : "topology-local-replicated";
  register_world_types(store);
  // The bulk of a scenario; held as text, they fit 100,000 VMIs in the SPEC's 2 GiB.
  for (const char* key : {kubevirt::vmi_key, kubevirt::vm_key, "persistentvolumeclaims", "persistentvolumes"})
    store.keep_as_text(key);
  std::mt19937_64 rng{o.seed};
  auto now = format_rfc3339(std::chrono::system_clock::now());
  auto created = [](const char* what, const expected<json>& r) {
    if (!r)
      spdlog::warn("scenario: creating {} failed: {}", what, r.err().message);
    return r.has_value();
  };

  // Nodes, each with its Portworx identity and one pool.
  std::vector<std::string> node_names;
  scenario_constraints constraints{o};
  for (int i = 1; i <= o.nodes; ++i) {
    auto name = numbered("node-", i, o.nodes);
    auto ip = "10.0." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 4);
    storage.add_node({name, uuid(rng), name, ip, uuid(rng)});
    auto node = node_object(name, ip);
    constraints.shape_node(node, i - 1);
    created("node", create_with_status(store, "nodes", node));
    node_names.push_back(name);
  }
  std::vector<std::string> namespaces;
  const char* ns_names[] = {"vms-a", "vms-b", "vms-c", "vms-d"};
  for (int i = 0; i < std::min(4, std::max(1, o.vmis)); ++i) {
    namespaces.push_back(ns_names[i]);
    created("namespace", create_with_status(store, "namespaces", namespace_object(ns_names[i])));
  }

  auto misplaced = chosen(rng, o.vmis, o.misplaced);
  auto pinned = chosen(rng, o.vmis, o.not_migratable);
  for (int i = 0; i < o.vmis; ++i) {
    vmi_plan plan;
    plan.name = numbered("vm-", i + 1, o.vmis);
    plan.namespace_ = namespaces[i % namespaces.size()];
    plan.owned_by_vm = coin(rng, 0.7);
    plan.live_migratable = !pinned[i];
    plan.ip = "10.244." + std::to_string((i / 250) % 250) + "." + std::to_string(i % 250 + 2);
    plan.mac = "02:" + hex(rng, 2) + ":" + hex(rng, 2) + ":" + hex(rng, 2) + ":" + hex(rng, 2) + ":" + hex(rng, 2);

    // Driver volumes and where their replicas live.
    std::map<std::string, int> score;
    std::vector<std::pair<vmi_volume_plan, storage_volume>> volumes;
    for (int k = 0; k < o.volumes_per_vmi; ++k) {
      vmi_volume_plan v;
      v.name = k == 0 ? "rootdisk" : "datadisk" + std::to_string(k);
      v.claim = plan.name + "-" + v.name;
      v.data_volume = plan.owned_by_vm ? (k == 0 || coin(rng, 0.5)) : coin(rng, 0.3);
      auto shuffled = node_names;
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      shuffled.resize(o.replicas);
      for (const auto& n : shuffled)
        ++score[n];
      storage_volume sv;
      sv.id = px_volume_id(rng);
      sv.pv_name = "pvc-" + uuid(rng);
      sv.name = sv.pv_name;
      if (longhorn)
        sv.id = sv.pv_name; // Longhorn's CSI driver names the volume after the PV
      sv.pvc_namespace = plan.namespace_;
      sv.pvc_name = v.claim;
      sv.driver = driver;
      sv.replica_nodes = shuffled;
      sv.size_bytes = 21474836480;
      volumes.emplace_back(v, sv);
    }
    // A few VMIs carry a disk of another CSI driver, which schedopt must ignore.
    bool extra = coin(rng, 0.15);
    std::string extra_pv = "pvc-" + uuid(rng);

    // Placement per SPEC §2.4: best-scoring node, or (misplaced) one scoring below best.
    int best = 0;
    for (const auto& n : node_names)
      best = std::max(best, score[n]);
    std::vector<std::string> best_nodes, worse_nodes;
    for (const auto& n : node_names)
      (score[n] == best ? best_nodes : worse_nodes).push_back(n);
    plan.node = misplaced[i] && !worse_nodes.empty() ? pick(rng, worse_nodes) : pick(rng, best_nodes);
    constraints.constrain(plan, i, score, node_names);

    for (auto& [v, sv] : volumes) {
      auto pvc = create_with_status(store, "persistentvolumeclaims",
                              pvc_object(plan.namespace_, v.claim, sv.pv_name, storage_class, driver,
                                         v.data_volume, plan.live_migratable));
      if (!created("PVC", pvc))
        continue;
      bool topology = !portworx && !longhorn;
      std::vector<std::string> affinity = topology ? sv.replica_nodes : std::vector<std::string>{};
      std::sort(affinity.begin(), affinity.end());
      auto pv = pv_object(sv.pv_name, *pvc, driver, sv.id, storage_class, affinity);
      if (longhorn) {
        pv["spec"]["csi"]["volumeAttributes"] = {{"numberOfReplicas", std::to_string(sv.replica_nodes.size())},
                                                 {"staleReplicaTimeout", "30"},
                                                 {"migratable", "true"},
                                                 {"storage.kubernetes.io/csiProvisionerIdentity", "1733000000000-8081-driver.longhorn.io"}};
        if (auto made = create_longhorn_volume(store, sv, plan.node); !made)
          spdlog::warn("scenario: {}", made.err().message);
      }
      created("PV", create_with_status(store, "persistentvolumes", pv));
      storage.add_volume(sv);
      plan.volumes.push_back(v);
    }
    if (extra) {
      vmi_volume_plan v{"seeddisk", plan.name + "-seed", false, false};
      auto pvc = create_with_status(store, "persistentvolumeclaims",
                              pvc_object(plan.namespace_, v.claim, extra_pv, "nfs-csi", other_csi_driver, false, true));
      if (created("PVC", pvc)) {
        created("PV", create_with_status(store, "persistentvolumes",
                                   pv_object(extra_pv, *pvc, other_csi_driver, "nfs-server.storage.svc#exports#" + extra_pv,
                                             "nfs-csi", {})));
        plan.volumes.push_back(v);
      }
    }

    std::string vm_uid;
    if (plan.owned_by_vm) {
      auto vm = create_with_status(store, kubevirt::vm_key, vm_object(plan));
      if (created("VirtualMachine", vm))
        vm_uid = (*vm)["metadata"].value("uid", "");
    }
    created("VirtualMachineInstance", create_with_status(store, kubevirt::vmi_key, vmi_object(plan, vm_uid, now)));
  }
  constraints.finish(store, node_names);
}

} // namespace schedopt::sim
