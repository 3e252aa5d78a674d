// Wires the world's parts: scenario, storage backend + gateway, KubeVirt controller.
#include "sim/world.hpp"

#include <mutex>
#include <random>

#include "sim/attached_pods.hpp"
#include "sim/evacuation_controller.hpp"
#include "sim/failover.hpp"
#include "sim/kubevirt_admission.hpp"
#include "sim/kubevirt_controller.hpp"
#include "sim/kubevirt_names.hpp"
#include "sim/node_drain.hpp"
#include "sim/object_store.hpp"
#include "sim/pod_workloads.hpp"
#include "sim/portworx_gateway.hpp"
#include "sim/storage_backend.hpp"
#include "sim/vmi_churn.hpp"
#include "sim/world_types.hpp"

namespace schedopt::sim {

namespace {

kubevirt_controller_options controller_options(const scenario_options& o) {
  kubevirt_controller_options c;
  c.kubevirt = o.kubevirt;
  c.migrations = default_migration_config(o.kubevirt);
  c.migrations.parallel_migrations_per_cluster = std::max(1, o.parallel_migrations_per_cluster);
  c.migrations.parallel_outbound_migrations_per_node = std::max(1, o.parallel_outbound_migrations_per_node);
  c.migration_bandwidth = o.migration_bandwidth;
  c.migration_failure_rate = o.migration_failure_rate;
  c.stages = default_migration_stages(o.phase_delay, o.migration_duration);
  c.vmi_update_lag = o.vmi_update_lag;
  c.seed = o.seed;
  return c;
}

/// KubeVirt's caps as the scenario's flags set them, for when no KubeVirt CR is stored.
kubevirt_cr_settings cr_fallback(const scenario_options& o) {
  kubevirt_cr_settings s;
  s.parallel_migrations_per_cluster = std::max(1, o.parallel_migrations_per_cluster);
  s.parallel_outbound_migrations_per_node = std::max(1, o.parallel_outbound_migrations_per_node);
  return s;
}

} // namespace

struct world::impl {
  object_store& store;
  scenario_options options;
  storage_backend storage;
  portworx_gateway gateway{storage};
  kubevirt_controller controller;
  evacuation_controller evacuation;
  node_drain drainer;
  vmi_churn churn;
  pod_workloads pods;
  std::unique_ptr<attached_pods> attached_pods_; // attached with --pods: launcher pods, Stork
  std::mutex failover_mutex;
  std::mt19937_64 failover_rng;

  impl(object_store& s, scenario_options o)
    : store(s), options(std::move(o)), controller(s, controller_options(options)),
      // Attached, the simulator writes to kube-apiserver as the attach kubeconfig's user,
      // which KubeVirt's admitter would not take for virt-controller: its evacuations
      // stay as before 1.7, throttled and without a priority.
      evacuation(s, {std::chrono::milliseconds{100}, std::chrono::seconds{5}, std::chrono::minutes{1}, cr_fallback(options),
                     options.attached ? kubevirt_version{6} : options.kubevirt}),
      drainer(s, {std::chrono::seconds{5}, std::chrono::milliseconds{100}, cr_fallback(options), !options.attached}),
      churn(s, {options.vmi_churn_per_second, std::chrono::milliseconds{100}, options.seed}),
      pods(s, storage, {options.pod_recreate_delay, options.pod_start_delay, options.pod_termination_delay,
                        std::chrono::milliseconds{50}, options.pods > 0}),
      failover_rng(options.seed * 0x9e3779b97f4a7c15ULL + 7) {}
};

world::world(object_store& store, scenario_options options)
  : impl_(std::make_unique<impl>(store, std::move(options))) {
  register_world_types(store);
  store.set_admission(kubevirt::vmim_key, make_migration_admission(store, impl_->options.kubevirt));
  auto planned = populate(store, impl_->storage, impl_->options);
  if (impl_->options.attached && impl_->options.pods > 0)
    impl_->attached_pods_ = std::make_unique<attached_pods>(store, impl_->storage, std::move(planned));
}

world::~world() {
  stop();
}

expected<bool> world::start(int sdk_port, const std::string& sdk_token,
                            std::optional<tls_material> sdk_tls) {
  auto port = impl_->gateway.start(sdk_port, sdk_token, std::move(sdk_tls));
  if (!port)
    return port.err();
  impl_->controller.start();
  impl_->evacuation.start();
  impl_->drainer.start();
  impl_->churn.start();
  // Attached, the control plane runs the pod controllers and kube-scheduler, kwok the
  // kubelets: KubeVirt's launcher pods and Stork's scheduler are what remain.
  if (!impl_->options.attached)
    impl_->pods.start();
  if (impl_->attached_pods_)
    impl_->attached_pods_->start();
  return true;
}

void world::stop() {
  if (impl_->attached_pods_)
    impl_->attached_pods_->stop();
  impl_->pods.stop();
  impl_->churn.stop();
  impl_->drainer.stop();
  impl_->evacuation.stop();
  impl_->controller.stop();
  impl_->gateway.stop();
}

void world::set_answer_faults(std::shared_ptr<answer_faults> faults) {
  impl_->gateway.set_answer_faults(std::move(faults));
}

std::string world::sdk_url() const {
  return impl_->gateway.url();
}

expected<std::string> world::failover(const std::string& node) {
  std::lock_guard<std::mutex> guard{impl_->failover_mutex};
  auto result = fail_over_pool(impl_->store, impl_->storage, node, impl_->failover_rng);
  if (!result)
    return result.err();
  return result->request_name;
}

expected<bool> world::drain(const std::string& node) {
  return impl_->drainer.drain(node, std::chrono::system_clock::now());
}

storage_backend& world::storage() {
  return impl_->storage;
}

kubevirt_controller& world::controller() {
  return impl_->controller;
}

pod_workloads& world::workloads() {
  return impl_->pods;
}

} // namespace schedopt::sim
