// Wires a controller process: API client, the informers, each kind's own services (its
// registry entry's start_services), the KubeVirt policy, status writer, event recorder and
// storage driver, from settings and a cluster config, under one owner that stops them.
// Shared by `schedopt run`, `plan`, `explain` and `demo`.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include <memory>

#include "actors/api_client_actor.hpp"
#include "actors/controller_context.hpp"
#include "k8s/cluster_config.hpp"

namespace schedopt {

struct controller_stack {
  controller_context ctx;
  scheduling_optimization_informer_actor requests;
  /// The KubeVirt CR informer behind ctx.kubevirt.
  kubevirt_informer_actor kubevirts;
  /// Linked to every actor above; stopping it stops them all, in order.
  stack_owner_actor owner;
};

/// `identity` (the replica's leader-election identity, if any) goes into the User-Agent
/// of every API request, so the API server's audit tells replicas apart. `writes` (leader
/// election) gates every write of the stack's API client.
caf::expected<controller_stack>
start_controller_stack(caf::actor_system& sys, const settings& cfg,
                       const k8s::cluster_config& cluster, const std::string& identity = "",
                       std::shared_ptr<const write_gate> writes = nullptr);

/// Blocks until every core informer the stack needs has completed its initial list, or
/// until `timeout`; false on timeout. A kind's own informers are not waited for: they
/// list on demand, and the kind's run waits for them itself.
bool wait_until_synced(caf::actor_system& sys, const controller_stack& stack,
                       std::chrono::milliseconds timeout);

/// Asks the status writer to write every pending update now; true once written (false
/// on timeout or failure).
bool flush_status(caf::actor_system& sys, const controller_stack& stack,
                  std::chrono::milliseconds timeout);

/// Stops every actor of the stack (through its owner: informers first, the API client
/// last). Returns at once; the actor system waits for them when it shuts down.
void stop_controller_stack(const controller_stack& stack);

} // namespace schedopt
