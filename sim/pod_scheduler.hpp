// The schedulers of the simulated cluster: binds every pending pod (any schedulerName;
// stork's pods scored with Stork's extender as well) to the node sim/pod_placement picks,
// or marks it Unschedulable with kube-scheduler's message and retries it later. Attached
// to a real API server it is Stork's alone, beside kube-scheduler, binding through
// pods/binding as a second scheduler does.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "model/error.hpp"

namespace schedopt::sim {

class object_store;
class storage_backend;
class vmi_usage_index;

struct pod_scheduler_options {
  /// An unschedulable pod is tried again this much later (kube-scheduler's backoff, 1s
  /// initially).
  std::chrono::milliseconds retry{1000};
  /// Only the pods naming this scheduler; empty: every pod.
  std::string only_scheduler;
  /// Binds a pod to a node, the whole of BindingREST's work (spec.nodeName and
  /// PodScheduled=True); null: written into the store.
  std::function<expected<bool>(const nlohmann::json& pod, const std::string& node)> bind;
  /// The node a pod goes to instead of the one the scheduler would pick, once (a
  /// scenario's misplaced pods); null or empty: none.
  std::function<std::string(const nlohmann::json& pod)> planned_node;
};

class pod_scheduler {
public:
  /// `storage` answers where each driver volume's replicas are, as Stork asks the
  /// storage driver.
  pod_scheduler(object_store& store, const storage_backend& storage, pod_scheduler_options options = {});
  ~pod_scheduler();

  /// One scheduling pass over the pending pods as of `now`.
  void tick(std::chrono::system_clock::time_point now);

private:
  /// False when the pod was not bound (gone, bound meanwhile, or refused).
  bool bind(const nlohmann::json& pod, const std::string& node, const std::string& stamp);

  object_store& store_;
  const storage_backend& storage_;
  pod_scheduler_options options_;
  /// VMI requests per node; attached on the first pending pod, so a cluster without pods
  /// pays nothing for it.
  std::shared_ptr<vmi_usage_index> vmis_;
  struct attempt {
    std::chrono::system_clock::time_point at;
    std::string message;
  };
  std::unordered_map<std::string, attempt> unschedulable_; // pod uid -> last failed try
};

} // namespace schedopt::sim
