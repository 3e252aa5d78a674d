// Supervisor actor: admission_queue (model/parallelism) decides who runs next,
// choose_target (model/target_choice) where; the actor only keeps promises.
#include "actors/supervisor_actor.hpp"

#include <map>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/logging.hpp"
#include "actors/system_config.hpp"
#include "k8s/metrics.hpp"
#include "model/cool_off.hpp"
#include "model/evaluation.hpp"
#include "model/parallelism.hpp"
#include "model/target_choice.hpp"

namespace schedopt {

namespace {

struct waiting_candidate {
  caf::typed_response_promise<std::string> promise;
  std::vector<std::string> targets;
};

struct supervisor_state {
  static inline const char* name = "supervisor";
  supervisor_options options;
  std::unique_ptr<admission_queue> queue;
  std::map<std::string, waiting_candidate> waiting;
  std::map<std::string, int64_t> inbound; // schedopt migrations in flight per target
  std::map<std::string, timestamp> admitted_at; // per VM: this process's cool-off memory
  bool stopped = false;
};

using supervisor_pointer = supervisor_actor::stateful_pointer<supervisor_state>;

void publish_in_flight(supervisor_pointer self) {
  k8s::default_metrics().gauge_set("schedopt_migrations_in_flight", {},
                                   static_cast<double>(self->state.queue->in_flight()));
}

/// Once per run: KubeVirt before 1.6 has no spec.addedNodeSelector (its VMIM schema
/// prunes it), so the migrations go wherever KubeVirt's scheduler puts them. Every landing
/// is still checked (MigratedOffReplica).
void say_unpinned(supervisor_pointer self) {
  auto& st = self->state;
  static bool described = [] {
    k8s::default_metrics().describe_counter(
      "schedopt_unpinned_runs_total",
      "Runs whose VMIMs KubeVirt created without spec.addedNodeSelector (KubeVirt before "
      "1.6 prunes it): their migrations went where KubeVirt's scheduler put them.");
    return true;
  }();
  (void) described;
  k8s::default_metrics().counter_add("schedopt_unpinned_runs_total", {});
  std::string message = "KubeVirt pruned spec.addedNodeSelector from a created VMIM (it "
                        "exists from KubeVirt 1.6): this run's migrations are not pinned to "
                        "replica nodes; each landing is checked";
  log_kv(spdlog::level::warn, message, {{"request", st.options.request.name}});
  if (st.options.events)
    self->send(st.options.events, event_record{st.options.request, "Warning",
                                               "TargetPinningUnsupported", message});
}

void admit_next(supervisor_pointer self) {
  auto& st = self->state;
  while (auto key = st.queue->next_admittable()) {
    auto i = st.waiting.find(*key);
    if (i == st.waiting.end())
      continue;
    std::string target;
    if (st.options.pin_target_node)
      target = choose_target(i->second.targets, st.inbound).value_or("");
    if (!target.empty())
      ++st.inbound[target];
    st.admitted_at[*key] = actor_now(self);
    i->second.promise.deliver(target);
    st.waiting.erase(i);
  }
  publish_in_flight(self);
}

supervisor_actor::behavior_type supervisor(supervisor_pointer self, supervisor_options options) {
  auto& st = self->state;
  st.options = options;
  st.queue = std::make_unique<admission_queue>(std::max<std::size_t>(1, options.parallelism));
  return {
    [=](admission_request& ask) -> caf::result<std::string> {
      auto& st = self->state;
      auto key = vmi_key(ask.vmi_namespace, ask.vmi_name);
      if (!ask.adopted_vmim.empty()) {
        st.queue->mark_in_flight(key);
        if (!ask.adopted_target.empty())
          ++st.inbound[ask.adopted_target];
        publish_in_flight(self);
        return ask.adopted_target;
      }
      if (st.stopped)
        return to_caf_error(ec::cancelled, "request stopped");
      if (auto i = st.admitted_at.find(key); i != st.admitted_at.end()
          && is_cooling_off(i->second, st.options.cool_off_period, actor_now(self)))
        return to_caf_error(ec::invalid_request, "cooling off");
      if (!st.queue->push(key))
        return to_caf_error(ec::invalid_request, "already admitted");
      auto promise = self->make_response_promise<std::string>();
      st.waiting[key] = waiting_candidate{promise, std::move(ask.target_nodes)};
      admit_next(self);
      return promise;
    },
    [=](const migration_finished& done) {
      auto& st = self->state;
      st.queue->finish(vmi_key(done.vmi_namespace, done.vmi_name));
      if (!done.target_node.empty() && st.inbound[done.target_node] > 0)
        --st.inbound[done.target_node];
      admit_next(self);
    },
    [=](atom::unpinned) {
      auto& st = self->state;
      if (!st.options.pin_target_node)
        return; // said already, or never pinned
      st.options.pin_target_node = false;
      say_unpinned(self);
    },
    [=](atom::stop) {
      auto& st = self->state;
      st.stopped = true;
      st.queue->clear_waiting();
      for (auto& [key, w] : st.waiting)
        w.promise.deliver(to_caf_error(ec::cancelled, "request stopped"));
      st.waiting.clear();
      publish_in_flight(self);
    },
  };
}

} // namespace

supervisor_actor spawn_supervisor(caf::local_actor* parent, supervisor_options options) {
  return parent->spawn<caf::linked>(supervisor, options);
}

} // namespace schedopt
