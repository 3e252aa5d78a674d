// What every command that talks to a cluster starts first: the cluster config, the actor
// system and the controller stack, set up the way `run` sets them up, so `plan`,
// `explain` and `demo` decide exactly as the controller would.
#pragma once

#include <memory>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "actors/controller_stack.hpp"
#include "model/error.hpp"

namespace schedopt {

struct local_stack {
  k8s::cluster_config cluster;
  caf::actor_system_config system_config; // outlives `system`
  std::unique_ptr<caf::actor_system> system;
  controller_stack stack;
};

/// Loads the cluster config (cfg.kubeconfig, cfg.context), configures CAF (schedopt's
/// message types, the work-sharing scheduler with cfg.workers) and starts the controller
/// stack; `identity` and `writes` as in start_controller_stack. The error is one line: the
/// kubeconfig's (ec::config_error and its own code) or the stack's.
expected<std::unique_ptr<local_stack>>
start_local_stack(const settings& cfg, const std::string& identity = "",
                  std::shared_ptr<const write_gate> writes = nullptr);

} // namespace schedopt
