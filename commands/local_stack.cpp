// Starting a command's cluster config, actor system and controller stack; see
// local_stack.hpp.
#include "commands/local_stack.hpp"

#include "actors/logging.hpp"
#include "actors/system_config.hpp"
#include "commands/scheduler_config.hpp"

namespace schedopt {

expected<std::unique_ptr<local_stack>>
start_local_stack(const settings& cfg, const std::string& identity,
                  std::shared_ptr<const write_gate> writes) {
  auto cluster = k8s::load_cluster_config(cfg.kubeconfig, cfg.context);
  if (!cluster)
    return cluster.err();
  auto local = std::make_unique<local_stack>();
  local->cluster = std::move(*cluster);
  register_schedopt_types(local->system_config);
  use_work_sharing_scheduler(local->system_config, cfg.workers);
  local->system = std::make_unique<caf::actor_system>(local->system_config);
  auto stack = start_controller_stack(*local->system, cfg, local->cluster, identity,
                                      std::move(writes));
  if (!stack)
    return make_error(ec::config_error, error_message(stack.error()));
  local->stack = std::move(*stack);
  return local;
}

} // namespace schedopt
