// `schedopt plan`: one evaluation of one kind (--kind, the VM kind by default) printed as
// a table or JSON; migrates or evicts nothing and writes nothing to the cluster.
#include "commands/commands.hpp"
#include "commands/one_evaluation.hpp"

namespace schedopt {

int plan_command(const settings& cfg, const plan_options& plan) {
  return run_one_evaluation("plan", plan.kind, cfg,
                            [&](caf::actor_system&, controller_stack& stack,
                                scheduling_optimization&) { stack.ctx.plan_output = plan.output; });
}

} // namespace schedopt
