// `schedopt plan`: one evaluation printed as a table or JSON; migrates nothing and
// writes nothing to the cluster.
#include "commands/commands.hpp"
#include "commands/one_evaluation.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"

namespace schedopt {

int plan_command(const settings& cfg, const plan_options& plan) {
  return run_one_evaluation("plan", vm_hyperconvergence_kind, cfg,
                            [&](caf::actor_system&, controller_stack& stack,
                                scheduling_optimization&) { stack.ctx.plan_output = plan.output; });
}

} // namespace schedopt
