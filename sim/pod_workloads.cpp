// Wiring of the pod components; each names the upstream code it follows.
#include "sim/pod_workloads.hpp"

#include <mutex>

#include "sim/disruption_controller.hpp"
#include "sim/kubelet.hpp"
#include "sim/launcher_pods.hpp"
#include "sim/pod_scheduler.hpp"
#include "sim/pvc_protection.hpp"
#include "sim/replicaset_controller.hpp"
#include "sim/statefulset_controller.hpp"
#include "sim/tick_thread.hpp"

namespace schedopt::sim {

struct pod_workloads::impl {
  pod_workload_options options;
  statefulset_controller statefulsets;
  replicaset_controller replicasets;
  pod_scheduler scheduler;
  kubelet kubelets;
  disruption_controller disruption;
  pvc_protection claims;
  std::unique_ptr<launcher_pods> launchers; // null unless options.launcher_pods
  std::mutex tick_mutex; // the thread and a test's direct tick() never interleave
  tick_thread ticker;

  impl(object_store& store, const storage_backend& storage, pod_workload_options o)
    : options(o), statefulsets(store, o.recreate_delay), replicasets(store, o.recreate_delay),
      scheduler(store, storage), kubelets(store, {o.start_delay, o.termination_delay}), disruption(store),
      claims(store), launchers(o.launcher_pods ? std::make_unique<launcher_pods>(store) : nullptr) {}

  void tick(std::chrono::system_clock::time_point now) {
    std::lock_guard<std::mutex> guard{tick_mutex};
    if (launchers)
      launchers->tick(now);
    statefulsets.tick(now);
    replicasets.tick(now);
    scheduler.tick(now);
    kubelets.tick(now);
    disruption.tick(now);
    claims.tick();
  }
};

pod_workloads::pod_workloads(object_store& store, const storage_backend& storage, pod_workload_options options)
  : impl_(std::make_unique<impl>(store, storage, options)) {}

pod_workloads::~pod_workloads() {
  stop();
}

void pod_workloads::start() {
  impl_->tick(std::chrono::system_clock::now());
  impl_->ticker.start(impl_->options.tick_interval, [this](std::chrono::system_clock::time_point now) { impl_->tick(now); });
}

void pod_workloads::stop() {
  if (impl_)
    impl_->ticker.stop();
}

void pod_workloads::tick(std::chrono::system_clock::time_point now) {
  impl_->tick(now);
}

} // namespace schedopt::sim
