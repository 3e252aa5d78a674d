// The CRDs go in by server-side apply, as virt-operator installs KubeVirt's (their
// last-applied annotation would not fit client-side apply's 256 KiB); schedopt's own CRD
// only when absent, since an install owns it. The mirror starts before the scenario is
// created, so the world's parts see the server's objects and everyone's changes.
#include "sim/attached_world.hpp"

#include <thread>

#include <spdlog/spdlog.h>

#include "sim/admission_webhooks.hpp"
#include "sim/crd_loader.hpp"
#include "sim/discovery.hpp"
#include "sim/json_fields.hpp"
#include "sim/kubevirt_admission.hpp"
#include "sim/kubevirt_config.hpp"
#include "sim/kubevirt_names.hpp"
#include "sim/object_store.hpp"
#include "sim/pod_facts.hpp"
#include "sim/tls.hpp"
#include "sim/upstream_client.hpp"
#include "sim/upstream_mirror.hpp"
#include "sim/world.hpp"
#include "sim/world_types.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

const std::string crd_collection = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const std::string webhook_configurations[] = {
  "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
  "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"};

/// kubectl wait --for=condition=Established, as an installer does before using a CRD.
expected<bool> wait_established(upstream_client& client, const std::string& name, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    auto crd = client.call("GET", crd_collection + "/" + name);
    if (crd) {
      for (auto& c : crd->value("/status/conditions"_json_pointer, json::array()))
        if (c.value("type", "") == "Established" && c.value("status", "") == "True")
          return true;
    } else {
      last = crd.err().message;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return make_error(ec::timeout, "CRD " + name + " not Established" + (last.empty() ? "" : ": " + last));
}

/// The CRD called `name` among the manifests in `dir`.
expected<json> crd_manifest(const std::string& dir, const std::string& name) {
  auto loaded = load_crd_dir(dir);
  if (!loaded)
    return loaded.err();
  for (auto& crd : *loaded)
    if (metadata_text(crd.manifest, "name") == name)
      return crd.manifest;
  return make_error(ec::not_found, "no CRD " + name + " in " + dir);
}

/// The types the simulated parts read: KubeVirt's, storage's and the nodes they run on.
std::vector<std::string> mirrored_keys(const object_store& store) {
  std::vector<std::string> keys = {"nodes", "namespaces", "pods", "persistentvolumeclaims", "persistentvolumes",
                                   kubevirt::vmi_key, kubevirt::vmim_key, kubevirt::vm_key, kubevirt_cr_key};
  for (const char* longhorn : {"replicas.longhorn.io", "volumes.longhorn.io"})
    if (store.find_type(longhorn))
      keys.push_back(longhorn);
  return keys;
}

} // namespace

struct attached_world::impl {
  object_store store;
  std::shared_ptr<upstream_client> client;
  std::unique_ptr<upstream_mirror> mirror;
  std::unique_ptr<admission_webhooks> webhooks;
  std::vector<std::string> webhook_paths; // the configurations applied, deleted at stop
  std::unique_ptr<world> simulated;
  scenario_options scenario;
};

attached_world::attached_world() : impl_(std::make_unique<impl>()) {}

attached_world::~attached_world() { stop(); }

world& attached_world::simulated() { return *impl_->simulated; }

expected<bool> attached_world::start(const std::string& kubeconfig, const serve_options& options,
                                     const std::string& crd_dir, const std::string& schedopt_crd_dir) {
  auto endpoint = read_kubeconfig(kubeconfig);
  if (!endpoint)
    return endpoint.err();
  impl_->client = std::make_shared<upstream_client>(*endpoint, "schedopt-sim/attach");
  auto& client = *impl_->client;
  if (auto version = client.call("GET", "/version"); !version)
    return make_error(version.err().code, "cannot reach the API server: " + version.err().message);

  auto kubevirt = options.scenario.kubevirt;
  auto crds = load_crd_dir(crd_dir, [kubevirt](json& crd) { shape_vmim_crd(crd, kubevirt); });
  if (!crds)
    return crds.err();
  for (auto& r : builtin_resources())
    impl_->store.register_type(r.type);
  for (auto& crd : *crds) {
    auto name = metadata_text(crd.manifest, "name");
    impl_->store.register_type(crd.resource.type);
    json manifest = crd.manifest;
    manifest.erase("status");
    if (name == "schedulingoptimizations.stork.libopenstorage.org") {
      if (client.call("GET", crd_collection + "/" + name))
        continue;
      // Absent there: deploy/'s, as an operator installs it, unless --crd-dir named its own.
      if (!schedopt_crd_dir.empty()) {
        auto own = crd_manifest(schedopt_crd_dir, name);
        if (!own)
          return own.err();
        manifest = std::move(*own);
      }
    }
    if (auto applied = client.apply(crd_collection + "/" + name, manifest, "schedopt-sim", true); !applied)
      return make_error(applied.err().code, "CRD " + name + ": " + applied.err().message);
  }
  for (auto& crd : *crds)
    if (auto ready = wait_established(client, metadata_text(crd.manifest, "name"), std::chrono::seconds(60)); !ready)
      return ready;
  spdlog::info("attach: {} CRDs established", crds->size());

  // The types the world reads, the CRDs' registrations above kept; then the mirror, so
  // the scenario is created into a store that already holds the server's objects.
  register_world_types(impl_->store);
  impl_->store.mirror_upstream(impl_->client);
  impl_->mirror = std::make_unique<upstream_mirror>(impl_->store, client);
  impl_->mirror->start(mirrored_keys(impl_->store));
  if (auto synced = impl_->mirror->wait_synced(std::chrono::seconds(60)); !synced)
    return synced;
  spdlog::info("attach: objects mirrored");
  // virt-api's VMIM admission, as webhooks kube-apiserver calls.
  auto webhook_tls = make_tls_material("schedopt-sim-virt-api-ca");
  if (!webhook_tls)
    return webhook_tls.err();
  impl_->webhooks = std::make_unique<admission_webhooks>(make_migration_admission(impl_->store, kubevirt));
  if (auto port = impl_->webhooks->start(*webhook_tls); !port)
    return port.err();
  for (auto& [collection, configuration] :
       {std::pair{webhook_configurations[0], impl_->webhooks->validating_configuration(*webhook_tls)},
        std::pair{webhook_configurations[1], impl_->webhooks->mutating_configuration(*webhook_tls)}}) {
    auto path = collection + "/" + metadata_text(configuration, "name");
    if (auto applied = client.apply(path, configuration, "schedopt-sim", true); !applied)
      return make_error(applied.err().code, "webhook configuration: " + applied.err().message);
    impl_->webhook_paths.push_back(path);
  }

  auto scenario = options.scenario;
  scenario.attached = true;
  impl_->scenario = scenario;
  impl_->simulated = std::make_unique<world>(impl_->store, scenario);
  spdlog::info("attach: scenario created");
  // populate() logs and goes on past a refused object; attach says so and stops.
  auto vmis = impl_->store.list_stored(kubevirt::vmi_key).items.size();
  if (vmis < static_cast<std::size_t>(scenario.vmis))
    return make_error(ec::invalid_request, "the API server took " + std::to_string(vmis) + " of the scenario's "
                                             + std::to_string(scenario.vmis) + " VMIs (the log says why)");
  if (!impl_->store.get(kubevirt_cr_key, kubevirt_cr_namespace, kubevirt_cr_name))
    if (auto made = create_kubevirt_cr(impl_->store, kubevirt,
                                       {{"parallelMigrationsPerCluster", scenario.parallel_migrations_per_cluster},
                                        {"parallelOutboundMigrationsPerNode",
                                         scenario.parallel_outbound_migrations_per_node}});
        !made)
      return make_error(made.err().code, "cannot create the KubeVirt CR: " + made.err().message);
  return true;
}

expected<bool> attached_world::wait_pods_running(std::chrono::seconds timeout) {
  if (impl_->scenario.pods <= 0)
    return true;
  auto wanted = static_cast<std::size_t>(impl_->scenario.pods);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t running = 0, launchers = 0, vms = 0;
  for (;;) {
    running = launchers = vms = 0;
    for (const auto& stored : impl_->store.list_stored(pods_key).items) {
      auto pod = stored->parsed();
      bool up = !is_terminating(*pod) && (is_pod_ready(*pod) || is_pod_terminal(*pod));
      (is_virt_launcher(*pod) ? launchers : running) += up;
    }
    for (const auto& stored : impl_->store.list_stored(kubevirt::vmi_key).items)
      vms += text_at(*stored->parsed(), "/status/phase"_json_pointer) == "Running";
    if (running >= wanted && launchers >= vms)
      return true;
    if (std::chrono::steady_clock::now() > deadline)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return make_error(ec::timeout, std::to_string(running) + " of the scenario's " + std::to_string(wanted) + " pods and "
                                   + std::to_string(launchers) + " of " + std::to_string(vms)
                                   + " virt-launcher pods run after " + std::to_string(timeout.count())
                                   + "s: is there a kubelet for them (--kwok DIR, or kwok in the cluster)?");
}

void attached_world::stop() {
  if (impl_->simulated)
    impl_->simulated->stop();
  if (impl_->mirror)
    impl_->mirror->stop();
  // As virt-operator's deletion of a KubeVirt install does: no webhook left pointing
  // at a server that is gone, which would refuse every VMIM (failurePolicy Fail).
  for (const auto& path : impl_->webhook_paths)
    impl_->client->call("DELETE", path);
  impl_->webhook_paths.clear();
  if (impl_->webhooks) {
    impl_->webhooks->stop();
    impl_->webhooks.reset();
  }
}

} // namespace schedopt::sim
