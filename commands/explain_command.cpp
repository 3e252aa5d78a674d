// `schedopt explain`: one evaluation of one kind (--kind, the VM kind by default), as
// `plan` runs it, explained for one VMI or pod or for every misplaced one; migrates or
// evicts nothing and writes nothing to the cluster. It runs with the cool-off period of
// the request the controller would run next, as that request would judge the VM or pod.
#include <caf/scoped_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/optimization_kinds.hpp"
#include "actors/system_config.hpp"
#include "commands/commands.hpp"
#include "commands/one_evaluation.hpp"
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

/// The spec explain runs with for the kind explained, as the next request would judge
/// (the kind's registry entry says what it takes from that request).
void take_cool_off(const std::string& kind, const scheduling_optimization& next,
                   scheduling_optimization& request) {
  const auto* entry = find_optimization_kind(kind);
  if (!entry || !entry->explain_spec)
    return;
  auto fragment = next.spec.kinds.find(entry->name);
  if (fragment == next.spec.kinds.end())
    return;
  request.spec.kinds[entry->name] = entry->explain_spec(fragment->second);
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
