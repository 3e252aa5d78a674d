// `schedopt explain`: one evaluation of one kind (--kind, the VM kind by default), as
// `plan` runs it, explained for one VMI or pod or for every misplaced one; migrates or
// evicts nothing and writes nothing to the cluster. It runs with the cool-off period of
// the request the controller would run next, as that request would judge the VM or pod.
#include <caf/scoped_actor.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "actors/system_config.hpp"
#include "commands/commands.hpp"
#include "commands/one_evaluation.hpp"
#include "model/kinds/pod_hyperconvergence/pod_spec.hpp"
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

/// The next request's cool-off period for the kind explained, in the spec explain runs.
void take_cool_off(const std::string& kind, const scheduling_optimization& next,
                   scheduling_optimization& request) {
  auto fragment = next.spec.kinds.find(kind);
  if (fragment == next.spec.kinds.end())
    return;
  if (kind == vm_hyperconvergence_kind) {
    if (auto spec = decode_vm_hyperconvergence_spec(fragment->second))
      request.spec.kinds[kind] =
        to_kind_spec(vm_hyperconvergence_spec{true, spec->cool_off_period, std::nullopt});
  } else if (kind == pod_hyperconvergence::kind_field) {
    if (auto spec = pod_hyperconvergence::decode_spec(fragment->second.json))
      request.spec.kinds[kind] = kind_spec{
        true, pod_hyperconvergence::to_json(
                pod_hyperconvergence::pod_hyperconvergence_spec{true, spec->cool_off_period,
                                                                std::nullopt})
                .dump()};
  }
}

} // namespace

int explain_command(const settings& cfg, const explain_options& options) {
  return run_one_evaluation(
    "explain", options.kind, cfg,
    [&](caf::actor_system& sys, controller_stack& stack, scheduling_optimization& request) {
      explain_query query;
      query.output = options.output;
      if (!options.all)
        query.key = options.namespace_ + "/" + options.name;
      if (auto next = next_in_queue(sys, stack)) {
        query.next = next_request{next->metadata.name, next->status.stage};
        take_cool_off(options.kind, *next, request);
      }
      stack.ctx.explain = query;
    });
}

} // namespace schedopt
