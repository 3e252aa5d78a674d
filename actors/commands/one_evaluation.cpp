// The informer stack is started as `run` starts it, so what plan and explain show is
// what the controller would decide; dry_run keeps every write out.
#include "actors/commands/one_evaluation.hpp"

#include <cstdio>

#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/commands/scheduler_config.hpp"
#include "actors/logging.hpp"
#include "actors/optimization_kinds.hpp"
#include "actors/system_config.hpp"

namespace schedopt {

int run_one_evaluation(const char* command, const settings& given,
                       const evaluation_setup& setup) {
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
  auto failed = [&](const std::string& why) {
    std::fprintf(stderr, "schedopt %s: %s\n", command, why.c_str());
    rc = 1;
  };
  if (!wait_until_synced(sys, *stack, std::chrono::seconds(60))) {
    failed("cannot read the cluster: informers did not sync within 60s");
  } else {
    scheduling_optimization request;
    request.metadata.name = command;
    request.spec.vm_hyperconvergence = vm_hyperconvergence_spec{true, std::nullopt, std::nullopt};
    setup(sys, *stack, request);
    caf::scoped_actor self{sys};
    auto kind = optimization_kinds().front().spawn(self.ptr(), stack->ctx);
    self->request(kind, caf::infinite, kind_run{request, false})
      .receive(
        [&](const kind_result& r) {
          if (!r.run_failure.empty())
            failed(r.run_failure);
        },
        [&](caf::error& err) { failed(error_message(err)); });
  }
  stop_controller_stack(*stack);
  return rc;
}

} // namespace schedopt
