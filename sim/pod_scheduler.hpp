// The schedulers of the simulated cluster: binds every pending pod (any schedulerName;
// stork's pods scored with Stork's extender as well) to the node sim/pod_placement picks,
// or marks it Unschedulable with kube-scheduler's message and retries it later.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>

namespace schedopt::sim {

class object_store;
class storage_backend;
class vmi_usage_index;

class pod_scheduler {
public:
  /// `storage` answers where each driver volume's replicas are, as Stork asks the
  /// storage driver. An unschedulable pod is tried again `retry` later
  /// (kube-scheduler's backoff, 1s initially).
  pod_scheduler(object_store& store, const storage_backend& storage,
                std::chrono::milliseconds retry = std::chrono::seconds{1});
  ~pod_scheduler();

  /// One scheduling pass over the pending pods as of `now`.
  void tick(std::chrono::system_clock::time_point now);

private:
  object_store& store_;
  const storage_backend& storage_;
  std::chrono::milliseconds retry_;
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
