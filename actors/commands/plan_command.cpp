// `schedopt plan`: one evaluation printed as a table or JSON; migrates nothing and
// writes nothing to the cluster.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/commands/commands.hpp"
#include "actors/commands/scheduler_config.hpp"
#include "actors/controller_stack.hpp"
#include "actors/logging.hpp"
#include "actors/optimization_kinds.hpp"
#include "actors/system_config.hpp"

namespace schedopt {

int plan_command(const settings& given, const plan_options& plan) {
  settings cfg = given;
  cfg.dry_run = true;
  configure_logging(cfg.log_format, cfg.log_level == "info" ? "warn" : cfg.log_level);
  auto cluster = k8s::load_cluster_config(cfg.kubeconfig, cfg.context);
  if (!cluster) {
    spdlog::error("{}", cluster.err().message);
    return 2;
  }
  caf::actor_system_config sys_cfg;
  register_schedopt_types(sys_cfg);
  use_work_sharing_scheduler(sys_cfg, cfg.workers);
  caf::actor_system sys{sys_cfg};
  auto stack = start_controller_stack(sys, cfg, *cluster);
  if (!stack) {
    spdlog::error("{}", error_message(stack.error()));
    return 2;
  }
  int rc = 0;
  if (!wait_until_synced(sys, *stack, std::chrono::seconds(60))) {
    spdlog::error("cannot read the cluster: informers did not sync within 60s");
    rc = 1;
  } else {
    stack->ctx.plan_output = plan.output;
    scheduling_optimization request;
    request.metadata.name = "plan";
    request.spec.vm_hyperconvergence = vm_hyperconvergence_spec{true, std::nullopt, std::nullopt};
    caf::scoped_actor self{sys};
    auto kind = optimization_kinds().front().spawn(self.ptr(), stack->ctx);
    self->request(kind, caf::infinite, kind_run{request, false})
      .receive(
        [&](const kind_result& r) {
          if (!r.run_failure.empty()) {
            spdlog::error("{}", r.run_failure);
            rc = 1;
          }
        },
        [&](caf::error& err) {
          spdlog::error("{}", error_message(err));
          rc = 1;
        });
  }
  stop_controller_stack(*stack);
  return rc;
}

} // namespace schedopt
