// See controller_stack.hpp.
#include "actors/controller_stack.hpp"

#include <any>
#include <map>
#include <thread>

#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include "actors/api_client_actor.hpp"
#include "actors/event_recorder_actor.hpp"
#include "actors/informer_actor.hpp"
#include "actors/kubevirt_policy_actor.hpp"
#include "actors/optimization_kinds.hpp"
#include "actors/stack_owner_actor.hpp"
#include "actors/status_writer_actor.hpp"
#include "actors/system_config.hpp"
#include "k8s/resource_traits.hpp"
#include "model/placement/cool_off.hpp"

namespace schedopt {

namespace {

/// How the stack runs one of its informers.
struct informer_role {
  /// The stack is ready (wait_until_synced) only once this informer has listed.
  bool needed_for_readiness = true;
  informer_options options;
};

/// Every informer of the stack with its role, in the order they start and stop: the one
/// list that spawning, the readiness check and the shutdown walk. `f(handle, role)`.
/// The core's only: a kind's own informers are its services (start_kind_services).
template <class Stack, class F>
void for_each_informer(Stack& stack, F&& f) {
  auto& c = stack.ctx;
  // VMIs hold the cool-off record (VirtualMachines too: the VM kind's own informer);
  // their store keeps its two keys.
  informer_role vmis;
  vmis.options.kept.cool_off_annotations = cool_off_record_keys(c.config.vm_cool_off_annotation);
  // Not part of readiness: a KubeVirt CR that cannot be read leaves KubeVirt's
  // defaults in force and migrationTimeout at its fallback.
  informer_role kubevirts{false, {}};
  kubevirts.options.max_backoff = std::chrono::seconds(60);
  f(c.vmis, vmis);
  f(c.vmims, informer_role{});
  f(c.pvcs, informer_role{});
  f(c.pvs, informer_role{});
  f(c.nodes, informer_role{});
  f(stack.requests, informer_role{});
  f(stack.kubevirts, kubevirts);
}

template <class T>
void spawn_into(informer_actor<T>& handle, caf::actor_system& sys, const api_client_actor& api,
                const informer_role& role) {
  handle = spawn_informer<T>(sys, api, role.options);
}

/// Starts what each registered kind keeps for itself (optimization_kind::start_services)
/// and files its handles under the kind's name; returns the actors behind them. The
/// stack names none of their types: only the kind reads its handles back.
std::vector<owned_actor> start_kind_services(caf::actor_system& sys, controller_context& ctx) {
  std::vector<owned_actor> actors;
  std::map<std::string, std::any> handles;
  for (const auto& kind : optimization_kinds()) {
    if (!kind.start_services)
      continue;
    auto services = kind.start_services(sys, ctx.api, ctx.config);
    handles.emplace(kind.name, std::move(services.handles));
    for (auto& actor : services.actors)
      actors.push_back(std::move(actor));
  }
  ctx.kind_handles = std::make_shared<const std::map<std::string, std::any>>(std::move(handles));
  return actors;
}

/// The stack's actors in the order they stop: what feeds the others first (the kinds'
/// own services, then the core's informers), the API client they all use last.
std::vector<owned_actor> in_stop_order(const controller_stack& stack,
                                       std::vector<owned_actor> kind_actors) {
  std::vector<owned_actor> out = std::move(kind_actors);
  for_each_informer(stack, [&](const auto& informer, const informer_role&) {
    out.push_back(owned_informer(informer));
  });
  auto& c = stack.ctx;
  out.push_back({"kubevirt policy", caf::actor_cast<caf::actor>(c.kubevirt)});
  out.push_back({"status writer", caf::actor_cast<caf::actor>(c.status)});
  out.push_back({"event recorder", caf::actor_cast<caf::actor>(c.events)});
  out.push_back({"storage driver", caf::actor_cast<caf::actor>(c.driver_actor)});
  out.push_back({"API client", caf::actor_cast<caf::actor>(c.api)});
  return out;
}

} // namespace

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
  for_each_informer(stack, [&](auto& informer, const informer_role& role) {
    spawn_into(informer, sys, *api, role);
  });
  // Not part of readiness (wait_until_synced walks for_each_informer only): a kind's
  // informers are on demand, and its run waits for them itself.
  auto kind_actors = start_kind_services(sys, ctx);
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
  stack.owner = spawn_stack_owner(sys, in_stop_order(stack, std::move(kind_actors)));
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
    bool all = true;
    for_each_informer(stack, [&](const auto& informer, const informer_role& role) {
      all = all && (!role.needed_for_readiness || synced(informer));
    });
    if (all)
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
  caf::anon_send(stack.owner, atom::stop_v);
}

} // namespace schedopt
