// `schedopt explain`: one evaluation, as `plan` runs it, explained for one VMI or for
// every misplaced one; migrates nothing and writes nothing to the cluster. It runs with
// the cool-off period of the request the controller would run next, as that request
// would judge the VM.
#include <caf/scoped_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/system_config.hpp"
#include "commands/commands.hpp"
#include "commands/one_evaluation.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"
#include "model/request_queue.hpp"

namespace schedopt {

namespace {

/// The request decide_queue() would run now, or nullopt when none is pending.
std::optional<scheduling_optimization> next_in_queue(caf::actor_system& sys,
                                                     const controller_stack& stack) {
  std::vector<scheduling_optimization> requests;
  caf::scoped_actor self{sys};
  self->request(stack.requests, std::chrono::seconds(30), atom::snapshot_v)
    .receive([&](shared_list<scheduling_optimization>& items) { requests = values_of(items); },
             [&](caf::error& err) {
               spdlog::warn("cannot read SchedulingOptimizations: {}", error_message(err));
             });
  auto decision = decide_queue(requests);
  for (auto& r : requests)
    if (decision.run && r.metadata.uid == *decision.run)
      return r;
  return std::nullopt;
}

} // namespace

int explain_command(const settings& cfg, const explain_options& options) {
  return run_one_evaluation(
    "explain", vm_hyperconvergence_kind, cfg,
    [&](caf::actor_system& sys, controller_stack& stack, scheduling_optimization& request) {
      explain_query query;
      query.output = options.output;
      if (!options.all)
        query.key = options.namespace_ + "/" + options.name;
      if (auto next = next_in_queue(sys, stack)) {
        query.next = next_request{next->metadata.name, next->status.stage};
        auto fragment = next->spec.kinds.find(vm_hyperconvergence_kind);
        if (fragment != next->spec.kinds.end())
          if (auto spec = decode_vm_hyperconvergence_spec(fragment->second))
            request.spec.kinds[vm_hyperconvergence_kind] =
              to_kind_spec(vm_hyperconvergence_spec{true, spec->cool_off_period, std::nullopt});
      }
      stack.ctx.explain = query;
    });
}

} // namespace schedopt
