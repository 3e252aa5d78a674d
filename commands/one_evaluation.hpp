// `schedopt plan` and `schedopt explain`: one read-only evaluation over a freshly
// synced informer stack (dry run: nothing is migrated, nothing written).
#pragma once

#include <functional>

#include <caf/actor_system.hpp>

#include "actors/controller_stack.hpp"
#include "config/settings.hpp"

namespace schedopt {

/// Lets the command set what the kind reports (ctx.plan_output, ctx.explain) and adjust
/// the request the evaluation runs for (its spec names the kind, enabled).
using evaluation_setup =
  std::function<void(caf::actor_system&, controller_stack&, scheduling_optimization&)>;

/// Runs the kind registered as `asked_kind` once (actors/optimization_kinds.hpp; "": the
/// first registered).
/// Exit code: 0; 1 when the cluster cannot be read or the run fails (one line
/// `schedopt <command>: <why>` on stderr); 2 when the kubeconfig is unusable.
int run_one_evaluation(const char* command, const std::string& asked_kind, const settings& cfg,
                       const evaluation_setup& setup);

} // namespace schedopt
