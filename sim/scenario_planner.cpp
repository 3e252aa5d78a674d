// The seeded half of a scenario: every draw from the generator happens here, in the
// same order for a seed, so a seed's cluster does not depend on how it is created.
#include "sim/scenario_planner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "model/timestamp.hpp"
#include "sim/scenario_random.hpp"

namespace schedopt::sim {

namespace {

constexpr const char* other_csi_driver = "nfs.csi.k8s.io";

} // namespace

using namespace scenario_random;

scenario_planner::scenario_planner(const scenario_options& options)
    : options_(options), longhorn_(options.driver == "longhorn"),
      portworx_(options.driver != "csi-topology" && !longhorn_),
      driver_(longhorn_   ? longhorn_csi_driver
              : portworx_ ? portworx_csi_driver
                          : topology_csi_driver),
      storage_class_(longhorn_   ? "longhorn"
                     : portworx_ ? "px-csi-vm"
                                 : "topology-local-replicated"),
      now_(format_rfc3339(std::chrono::system_clock::now())), rng_(options.seed),
      constraints_(options) {
  const char* ns_names[] = {"vms-a", "vms-b", "vms-c", "vms-d"};
  for (int i = 0; i < std::min(4, std::max(1, options_.vmis)); ++i)
    namespaces_.push_back(ns_names[i]);
}

std::vector<planned_node> scenario_planner::plan_nodes() {
  std::vector<planned_node> out;
  // Drawn from a generator of their own, so the rest of a seed's cluster is the same with
  // or without these nodes.
  std::mt19937_64 handler_rng{options_.seed ^ 0x7669727468646c72ULL};
  without_virt_handler_ = chosen(handler_rng, options_.nodes,
                                 static_cast<double>(options_.nodes_without_virt_handler) / options_.nodes);
  std::vector<std::string> models = options_.cpu_models;
  if (models.empty())
    models.push_back(default_host_cpu_model);
  std::size_t with_handler = 0;
  for (int i = 1; i <= options_.nodes; ++i) {
    auto name = numbered("node-", i, options_.nodes);
    auto ip = "10.0." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 4);
    std::string model;
    if (!without_virt_handler_[i - 1])
      model = models[with_handler++ % models.size()]; // round-robin over virt-handler nodes
    planned_node node{{name, uuid(rng_), name, ip, uuid(rng_)}, node_object(name, ip, model)};
    constraints_.shape_node(node.object, i - 1);
    node_names_.push_back(name);
    out.push_back(std::move(node));
  }
  misplaced_ = chosen(rng_, options_.vmis, options_.misplaced);
  pinned_ = chosen(rng_, options_.vmis, options_.not_migratable);
  return out;
}

planned_vmi scenario_planner::plan_vmi(int i) {
  planned_vmi out;
  vmi_plan& plan = out.plan;
  plan.name = numbered("vm-", i + 1, options_.vmis);
  plan.namespace_ = namespaces_[i % namespaces_.size()];
  plan.owned_by_vm = coin(rng_, 0.7);
  plan.live_migratable = !pinned_[i];
  plan.memory = options_.vmi_memory;
  plan.ip = "10.244." + std::to_string((i / 250) % 250) + "." + std::to_string(i % 250 + 2);
  plan.mac = "02:" + hex(rng_, 2) + ":" + hex(rng_, 2) + ":" + hex(rng_, 2) + ":" + hex(rng_, 2) +
             ":" + hex(rng_, 2);

  // Driver volumes and where their replicas live.
  std::map<std::string, int> score;
  for (int k = 0; k < options_.volumes_per_vmi; ++k) {
    vmi_volume_plan v;
    v.name = k == 0 ? "rootdisk" : "datadisk" + std::to_string(k);
    v.claim = plan.name + "-" + v.name;
    v.data_volume = plan.owned_by_vm ? (k == 0 || coin(rng_, 0.5)) : coin(rng_, 0.3);
    auto shuffled = node_names_;
    std::shuffle(shuffled.begin(), shuffled.end(), rng_);
    shuffled.resize(options_.replicas);
    for (const auto& n : shuffled)
      ++score[n];
    storage_volume sv;
    sv.id = px_volume_id(rng_);
    sv.pv_name = "pvc-" + uuid(rng_);
    sv.name = sv.pv_name;
    if (longhorn_)
      sv.id = sv.pv_name; // Longhorn's CSI driver names the volume after the PV
    sv.pvc_namespace = plan.namespace_;
    sv.pvc_name = v.claim;
    sv.driver = driver_;
    sv.replica_nodes = shuffled;
    sv.size_bytes = 21474836480;
    plan.volumes.push_back(v);
    out.volumes.push_back({std::move(sv), true, {}, {}});
  }
  // A few VMIs carry a disk of another CSI driver, which schedopt must ignore.
  bool extra = coin(rng_, 0.15);
  std::string extra_pv = "pvc-" + uuid(rng_);

  // Placement per docs/design.md §2.4: best-scoring node, or (misplaced) one scoring below best,
  // among the nodes a virt-launcher pod can run on (kubevirt.io/schedulable=true, which
  // only virt-handler sets).
  std::vector<std::string> runnable;
  for (std::size_t n = 0; n < node_names_.size(); ++n)
    if (!without_virt_handler_[n])
      runnable.push_back(node_names_[n]);
  int best = 0;
  for (const auto& n : runnable)
    best = std::max(best, score[n]);
  std::vector<std::string> best_nodes, worse_nodes;
  for (const auto& n : runnable)
    (score[n] == best ? best_nodes : worse_nodes).push_back(n);
  plan.node =
      misplaced_[i] && !worse_nodes.empty() ? pick(rng_, worse_nodes) : pick(rng_, best_nodes);
  constraints_.constrain(plan, i, score, node_names_);

  bool topology = !portworx_ && !longhorn_;
  for (std::size_t k = 0; k < out.volumes.size(); ++k) {
    auto& v = plan.volumes[k];
    auto& pv = out.volumes[k];
    auto& sv = pv.backing;
    pv.pvc = pvc_object(plan.namespace_, v.claim, sv.pv_name, storage_class_, driver_,
                        v.data_volume, plan.live_migratable);
    std::vector<std::string> affinity = topology ? sv.replica_nodes : std::vector<std::string>{};
    std::sort(affinity.begin(), affinity.end());
    pv.pv = pv_object(sv.pv_name, pv.pvc, driver_, sv.id, storage_class_, affinity);
    if (longhorn_)
      pv.pv["spec"]["csi"]["volumeAttributes"] = {
          {"numberOfReplicas", std::to_string(sv.replica_nodes.size())},
          {"staleReplicaTimeout", "30"},
          {"migratable", "true"},
          {"storage.kubernetes.io/csiProvisionerIdentity",
           "1733000000000-8081-driver.longhorn.io"}};
  }
  if (extra) {
    vmi_volume_plan v{"seeddisk", plan.name + "-seed", false, false};
    planned_volume pv;
    pv.driver_owned = false;
    pv.pvc =
        pvc_object(plan.namespace_, v.claim, extra_pv, "nfs-csi", other_csi_driver, false, true);
    pv.pv = pv_object(extra_pv, pv.pvc, other_csi_driver,
                      "nfs-server.storage.svc#exports#" + extra_pv, "nfs-csi", {});
    plan.volumes.push_back(v);
    out.volumes.push_back(std::move(pv));
  }

  if (plan.owned_by_vm)
    out.vm = vm_object(plan);
  out.vmi = vmi_object(plan, "", now_);
  return out;
}

} // namespace schedopt::sim
