// See controller_stack.hpp.
#include "actors/controller_stack.hpp"

#include <thread>

#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include "actors/api_client_actor.hpp"
#include "actors/event_recorder_actor.hpp"
#include "actors/informer_actor.hpp"
#include "actors/kubevirt_policy_actor.hpp"
#include "actors/status_writer_actor.hpp"
#include "actors/system_config.hpp"
#include "model/cool_off.hpp"

namespace schedopt {

caf::expected<controller_stack>
start_controller_stack(caf::actor_system& sys, const settings& cfg,
                       const k8s::cluster_config& cluster, const std::string& identity,
                       std::shared_ptr<const write_gate> writes) {
  auto driver = find_storage_driver(cfg.driver);
  if (!driver)
    return driver.error();
  api_client_options api_options;
  api_options.qps = cfg.api_qps;
  api_options.burst = static_cast<int>(cfg.api_burst);
  if (!identity.empty())
    api_options.user_agent += " (" + identity + ")";
  api_options.writes = std::move(writes);
  auto api = spawn_api_client(sys, cluster, api_options);
  if (!api)
    return api.error();
  auto driver_actor = driver->spawn(sys, cfg, *api);
  if (!driver_actor)
    return driver_actor.error();
  controller_stack stack;
  auto& ctx = stack.ctx;
  ctx.config = cfg;
  ctx.api = *api;
  informer_options vmi_options;
  vmi_options.kept.cool_off_annotations = {cfg.vm_cool_off_annotation,
                                      cool_off_request_annotation(cfg.vm_cool_off_annotation)};
  ctx.vmis = spawn_informer<virtual_machine_instance>(sys, *api, vmi_options);
  ctx.vmims = spawn_informer<virtual_machine_instance_migration>(sys, *api);
  // Not part of readiness (wait_until_synced): until it has listed, or where there is
  // no VirtualMachine API, a run lists VMs itself. Its backoff is longer so a missing
  // API is asked about once a minute, not every 10 s.
  informer_options vm_options;
  vm_options.kept.cool_off_annotations = vmi_options.kept.cool_off_annotations;
  vm_options.max_backoff = std::chrono::seconds(60);
  ctx.vms = spawn_informer<virtual_machine>(sys, *api, vm_options);
  ctx.pvcs = spawn_informer<persistent_volume_claim>(sys, *api);
  ctx.pvs = spawn_informer<persistent_volume>(sys, *api);
  ctx.nodes = spawn_informer<node>(sys, *api);
  stack.requests = spawn_informer<scheduling_optimization>(sys, *api);
  // Not part of readiness either: a KubeVirt CR that cannot be read leaves KubeVirt's
  // defaults in force and migrationTimeout at its fallback.
  informer_options kubevirt_options;
  kubevirt_options.max_backoff = std::chrono::seconds(60);
  stack.kubevirts = spawn_informer<kubevirt_cr>(sys, *api, kubevirt_options);
  ctx.kubevirt = spawn_kubevirt_policy(sys, stack.kubevirts, ctx.vmims, ctx.nodes);
  status_writer_options writer;
  writer.flush_interval = cfg.status_flush_interval;
  writer.heartbeat_interval = cfg.status_heartbeat_interval;
  writer.max_details = static_cast<std::size_t>(cfg.max_non_hyperconverged_per_run);
  writer.dry_run = cfg.dry_run;
  ctx.events = spawn_event_recorder(sys, *api);
  writer.events = ctx.events; // a status patch the API rejects for good is evented
  ctx.status = spawn_status_writer(sys, *api, writer);
  ctx.driver = *driver;
  ctx.driver_actor = *driver_actor;
  return stack;
}

bool wait_until_synced(caf::actor_system& sys, const controller_stack& stack,
                       std::chrono::milliseconds timeout) {
  caf::scoped_actor self{sys};
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto synced = [&](const auto& informer) {
    bool result = false;
    self->request(informer, std::chrono::seconds(5), atom::synced_v)
      .receive([&](bool s) { result = s; }, [&](caf::error&) { result = false; });
    return result;
  };
  while (std::chrono::steady_clock::now() < deadline) {
    auto& c = stack.ctx;
    if (synced(c.vmis) && synced(c.vmims) && synced(c.pvcs) && synced(c.pvs) && synced(c.nodes)
        && synced(stack.requests))
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

bool flush_status(caf::actor_system& sys, const controller_stack& stack,
                  std::chrono::milliseconds timeout) {
  caf::scoped_actor self{sys};
  bool flushed = false;
  self->request(stack.ctx.status, timeout, atom::flush_v)
    .receive([&](bool ok) { flushed = ok; }, [&](caf::error&) { flushed = false; });
  return flushed;
}

void stop_controller_stack(const controller_stack& stack) {
  auto& c = stack.ctx;
  auto reason = caf::exit_reason::user_shutdown;
  caf::anon_send_exit(c.vmis, reason);
  caf::anon_send_exit(c.vmims, reason);
  caf::anon_send_exit(c.vms, reason);
  caf::anon_send_exit(c.pvcs, reason);
  caf::anon_send_exit(c.pvs, reason);
  caf::anon_send_exit(c.nodes, reason);
  caf::anon_send_exit(stack.requests, reason);
  caf::anon_send_exit(stack.kubevirts, reason);
  caf::anon_send_exit(c.kubevirt, reason);
  caf::anon_send_exit(c.status, reason);
  caf::anon_send_exit(c.events, reason);
  caf::anon_send_exit(c.driver_actor, reason);
  caf::anon_send_exit(c.api, reason);
}

} // namespace schedopt
