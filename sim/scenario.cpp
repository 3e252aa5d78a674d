// Scenario creation: scenario_planner decides and builds every object from one seeded
// generator; populate() stores them, a VMI's objects at a time. Only the store's own
// fields (uid, resourceVersion, creationTimestamp) and condition times differ between
// runs of a seed.
#include "sim/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include <spdlog/spdlog.h>

#include "sim/kubevirt_names.hpp"
#include "sim/longhorn.hpp"
#include "sim/object_store.hpp"
#include "sim/scenario_objects.hpp"
#include "sim/scenario_planner.hpp"
#include "sim/scenario_pods.hpp"
#include "sim/storage_backend.hpp"
#include "sim/world_types.hpp"

namespace schedopt::sim {

namespace {

scenario_options clamped(scenario_options o) {
  o.nodes = std::max(1, o.nodes);
  o.vmis = std::max(0, o.vmis);
  o.volumes_per_vmi = std::max(1, o.volumes_per_vmi);
  o.replicas = std::clamp(o.replicas, 1, o.nodes);
  o.nodes_without_virt_handler = std::clamp(o.nodes_without_virt_handler, 0, o.nodes - 1);
  o.misplaced = std::clamp(o.misplaced, 0.0, 1.0);
  o.not_migratable = std::clamp(o.not_migratable, 0.0, 1.0);
  o.pods = std::max(0, o.pods);
  o.volumes_per_pod = std::max(1, o.volumes_per_pod);
  for (double* f : {&o.pods_in_statefulsets, &o.pods_uncontrolled, &o.pods_default_scheduler, &o.pods_misplaced,
                    &o.pdb_blocked, &o.pdb_overlap})
    *f = std::clamp(*f, 0.0, 1.0);
  return o;
}

/// Batches of planned VMIs passed between the planner's thread and the storing one.
/// They go back once stored, so that their trees are freed by the thread that built
/// them (each thread allocates from its own arena).
class planned_batches {
public:
  /// `max_batches` 0: unbounded.
  explicit planned_batches(std::size_t max_batches) : max_batches_(max_batches) {}

  /// False once finish() was called: nobody takes batches any more.
  bool push(std::vector<planned_vmi> batch) {
    std::unique_lock<std::mutex> guard{mutex_};
    room_.wait(guard, [&] { return done_ || max_batches_ == 0 || batches_.size() < max_batches_; });
    if (done_)
      return false;
    batches_.push_back(std::move(batch));
    ready_.notify_one();
    return true;
  }
  /// Waits for a batch; empty once finish() was called and every batch is taken.
  std::vector<planned_vmi> pop() { return take(true); }
  /// A batch if one is waiting, else empty.
  std::vector<planned_vmi> try_pop() { return take(false); }
  void finish() {
    std::lock_guard<std::mutex> guard{mutex_};
    done_ = true;
    ready_.notify_all();
    room_.notify_all();
  }

private:
  std::vector<planned_vmi> take(bool wait) {
    std::unique_lock<std::mutex> guard{mutex_};
    if (wait)
      ready_.wait(guard, [&] { return !batches_.empty() || done_; });
    if (batches_.empty())
      return {};
    auto batch = std::move(batches_.front());
    batches_.pop_front();
    room_.notify_one();
    return batch;
  }

  std::size_t max_batches_;
  std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::deque<std::vector<planned_vmi>> batches_;
  bool done_ = false;
};

/// Stores one planned VMI: each PVC, then its PV bound to the stored claim, the VM, then
/// the VMI owned by the stored VM. The store keeps .status as given on create.
void create_planned(object_store& store, storage_backend& storage, planned_vmi& p, bool longhorn) {
  // `object` becomes the object as stored (with its uid and resourceVersion).
  auto create = [&](const char* what, const char* key, json& object) {
    auto made = store.create(key, std::move(object));
    if (!created(what, made))
      return false;
    object = std::move(*made);
    return true;
  };
  for (auto& volume : p.volumes) {
    if (!create("PVC", "persistentvolumeclaims", volume.pvc))
      continue;
    bind_claim(volume.pv, volume.pvc);
    if (longhorn && volume.driver_owned)
      if (auto made = create_longhorn_volume(store, volume.backing, p.plan.node); !made)
        spdlog::warn("scenario: {}", made.err().message);
    create("PV", "persistentvolumes", volume.pv);
    if (volume.driver_owned)
      storage.add_volume(volume.backing);
  }
  if (!p.vm.is_null() && create("VirtualMachine", kubevirt::vm_key, p.vm))
    own_by_vm(p.vmi, p.vm["metadata"].value("uid", ""));
  create("VirtualMachineInstance", kubevirt::vmi_key, p.vmi);
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
  if (o.pods < 0)
    return bad("pods must not be negative, got " + std::to_string(o.pods));
  if (o.volumes_per_pod < 1)
    return bad("volumes per pod must be at least 1, got " + std::to_string(o.volumes_per_pod));
  for (auto [v, name] : {std::pair{o.pods_in_statefulsets, "pods-in-statefulsets"},
                         std::pair{o.pods_uncontrolled, "pods-uncontrolled"},
                         std::pair{o.pods_default_scheduler, "pods-default-scheduler"},
                         std::pair{o.pods_misplaced, "pods-misplaced"}, std::pair{o.pdb_blocked, "pdb-blocked"},
                         std::pair{o.pdb_overlap, "pdb-overlap"}})
    if (auto e = fraction(v, name))
      return *e;
  if (o.parallel_migrations_per_cluster < 1 || o.parallel_outbound_migrations_per_node < 1)
    return bad("parallel migration limits must be at least 1");
  if (o.nodes_without_virt_handler < 0 || o.nodes_without_virt_handler >= o.nodes)
    return bad("nodes without virt-handler must leave at least one of the " + std::to_string(o.nodes)
               + " nodes for VMIs, got " + std::to_string(o.nodes_without_virt_handler));
  for (const auto& model : o.cpu_models)
    if (model.empty() || model.size() > 63 || model.find_first_of("/= ,") != std::string::npos)
      return bad("CPU model \"" + model + "\" is not a label name part (1-63 characters, no '/', '=', ',')");
  if (o.vmi_churn_per_second < 0)
    return bad("VMI churn must not be negative");
  if (o.driver != "portworx" && o.driver != "csi-topology" && o.driver != "longhorn")
    return bad("unknown driver \"" + o.driver + "\" (portworx, csi-topology, longhorn)");
  return true;
}

first_placements populate(object_store& store, storage_backend& storage, const scenario_options& requested) {
  if (auto ok = validate(requested); !ok)
    spdlog::warn("{}; clamping", ok.err().message);
  auto o = clamped(requested);
  register_world_types(store);
  // The bulk of a scenario; held as text, they keep the simulator within its memory
  // budget at the largest scale (docs/simulator.md).
  for (const char* key : {kubevirt::vmi_key, kubevirt::vm_key, "persistentvolumeclaims", "persistentvolumes"})
    store.keep_as_text(key);

  scenario_planner planner{o};
  std::vector<storage_node> node_identities;
  std::map<std::string, std::string> node_ips;
  for (auto& node : planner.plan_nodes()) {
    storage.add_node(node.identity);
    node_identities.push_back(node.identity);
    node_ips[node.identity.name] = node.identity.ip;
    // Attached, kwok is every node's kubelet: its node-initialize stage
    // (kustomize/stage/node/fast) takes the nodes whose Ready condition is not True and
    // heartbeats them from then on, so the nodes are created without conditions.
    if (o.attached && node.object.contains("status"))
      node.object["status"].erase("conditions");
    created("node", store.create("nodes", std::move(node.object)));
  }
  for (const auto& ns : planner.namespaces())
    created("namespace", store.create("namespaces", namespace_object(ns)));

  // The planner builds on a thread of its own while this one stores.
  planned_batches planned{8}, stored{0};
  std::exception_ptr planning_failed;
  std::thread planning{[&] {
    constexpr int batch_size = 128;
    try {
      for (int first = 0; first < o.vmis; first += batch_size) {
        while (!stored.try_pop().empty()) {
        }
        std::vector<planned_vmi> batch;
        batch.reserve(batch_size);
        for (int i = first; i < std::min(o.vmis, first + batch_size); ++i)
          batch.push_back(planner.plan_vmi(i));
        if (!planned.push(std::move(batch)))
          break; // the storing side gave up
      }
    } catch (...) {
      planning_failed = std::current_exception();
    }
    planned.finish();
    while (!stored.pop().empty()) {
    }
  }};
  std::exception_ptr storing_failed;
  try {
    for (auto batch = planned.pop(); !batch.empty(); batch = planned.pop()) {
      for (auto& p : batch)
        create_planned(store, storage, p, planner.longhorn());
      stored.push(std::move(batch));
    }
  } catch (...) {
    storing_failed = std::current_exception();
    planned.finish();
  }
  stored.finish();
  planning.join();
  if (storing_failed || planning_failed)
    std::rethrow_exception(storing_failed ? storing_failed : planning_failed);
  planner.constraints().finish(store, planner.node_names());
  if (o.pods > 0) {
    std::vector<bool> tainted;
    for (std::size_t i = 0; i < node_identities.size(); ++i)
      tainted.push_back(planner.constraints().tainted(static_cast<int>(i)));
    pod_scenario_planner pods{o, node_identities, tainted};
    auto workloads = pods.plan();
    if (o.attached)
      return create_pod_workloads(store, storage, workloads, planner.longhorn(), o.pod_termination_delay);
    store_pod_workloads(store, storage, workloads, node_ips, planner.longhorn());
  }
  return {};
}

} // namespace schedopt::sim
