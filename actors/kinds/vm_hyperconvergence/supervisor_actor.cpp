// Supervisor actor: admission_queue (model/kinds/vm_hyperconvergence/parallelism) decides
// who runs next, choose_target (model/kinds/vm_hyperconvergence/target_choice) where; the
// actor only keeps promises.
#include "actors/kinds/vm_hyperconvergence/supervisor_actor.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <caf/actor_cast.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/logging.hpp"
#include "actors/system_config.hpp"
#include "k8s/metrics.hpp"
#include "model/placement/cool_off.hpp"
#include "model/kinds/vm_hyperconvergence/evaluation.hpp"
#include "model/placement/parallelism.hpp"
#include "model/placement/target_choice.hpp"
#include "model/kubevirt_config.hpp"

namespace schedopt {

namespace {

struct waiting_candidate {
  caf::typed_response_promise<admission_grant> promise;
  std::vector<std::string> targets;
  std::string source; // the node the VMI ran on at evaluation
};

struct supervisor_state {
  static inline const char* name = "supervisor";
  supervisor_options options;
  std::unique_ptr<admission_queue> queue;
  std::map<std::string, waiting_candidate> waiting;
  std::map<std::string, int64_t> inbound; // schedopt migrations in flight per target
  std::map<std::string, timestamp> admitted_at; // per VM: this process's cool-off memory
  /// KubeVirt's configuration as last told; nothing is admitted before the first word
  /// (a run must not start above KubeVirt's caps).
  std::optional<kubevirt_policy> kubevirt;
  /// Nodes already closed when the run's first policy arrived: its evaluation saw them
  /// (refused as targets; a VM on a cordoned node is still moved off it).
  std::vector<std::string> closed_at_start;
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
void say_unpinned(supervisor_pointer self, const std::string& why) {
  auto& st = self->state;
  if (!st.options.pin_target_node)
    return; // said already, or never pinned
  st.options.pin_target_node = false;
  k8s::default_metrics().describe_once("schedopt_unpinned_runs_total", [](auto& m) {
    m.describe_counter(
      "schedopt_unpinned_runs_total",
      "Runs that went unpinned because KubeVirt is older than 1.6 (its CR's version, or "
      "a created VMIM without spec.addedNodeSelector): their migrations went where "
      "KubeVirt's scheduler put them.");
  });
  k8s::default_metrics().counter_add("schedopt_unpinned_runs_total", {});
  std::string message = why + " (spec.addedNodeSelector exists from KubeVirt 1.6): this "
                        "run's migrations are not pinned to replica nodes; each landing is "
                        "checked";
  log_kv(spdlog::level::warn, message, {{"request", st.options.request.name}});
  if (st.options.events)
    self->send(st.options.events, event_record{st.options.request, "Warning",
                                               "TargetPinningUnsupported", message});
}

/// KubeVirt's configuration changed (or was first told): the queue follows it from the
/// next admission on; migrations in flight are not touched.
void follow(supervisor_pointer self, const kubevirt_policy& p) {
  auto& st = self->state;
  bool first = !st.kubevirt;
  std::optional<kubevirt_migration_limits> limits;
  if (p.cr_seen)
    limits = p.limits;
  auto before = st.queue->capacity();
  // Without a CR, KubeVirt still enforces its defaults: p.limits holds them.
  st.queue->set_capacity(static_cast<std::size_t>(in_flight_capacity(
    static_cast<int64_t>(st.options.parallelism), st.options.parallelism_explicit, p.limits)));
  st.queue->set_per_source_limit(
    static_cast<std::size_t>(std::max<int64_t>(0, p.limits.parallel_outbound_migrations_per_node)));
  st.queue->set_held(yields_to_kubevirt(st.options.yield_to_kubevirt, p.limits, p.kubevirt_waiting));
  if (first)
    st.closed_at_start = p.closed_nodes;
  st.kubevirt = p;
  if (first || before != st.queue->capacity())
    log_kv(spdlog::level::info,
           "in-flight buffer of " + std::to_string(st.queue->capacity()) + ", at most "
             + std::to_string(st.queue->per_source_limit()) + " per source node",
           {{"request", st.options.request.name}});
  if (limits && !limits->pinning_supported)
    say_unpinned(self, "KubeVirt " + limits->version + " is older than 1.6");
}

/// `targets` without the nodes closed to migrations (both sorted or not: small lists).
std::vector<std::string> open_targets(const std::vector<std::string>& targets,
                                      const std::vector<std::string>& closed) {
  std::vector<std::string> out;
  for (const auto& t : targets)
    if (std::find(closed.begin(), closed.end(), t) == closed.end())
      out.push_back(t);
  return out;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

void admit_next(supervisor_pointer self) {
  auto& st = self->state;
  if (!st.kubevirt)
    return publish_in_flight(self);
  while (auto key = st.queue->next_admittable()) {
    auto i = st.waiting.find(*key);
    if (i == st.waiting.end())
      continue;
    auto& closed = st.kubevirt->closed_nodes;
    auto& seen = st.closed_at_start;
    if (!i->second.source.empty()
        && std::find(closed.begin(), closed.end(), i->second.source) != closed.end()
        && std::find(seen.begin(), seen.end(), i->second.source) == seen.end()) {
      // Its node closed since evaluation: a drain's evacuation moves it (and a VMIM of
      // ours, planned from where it was, could chase it onto its own node). Left to
      // KubeVirt; a later request places it.
      st.admitted_at[*key] = actor_now(self);
      i->second.promise.deliver(admission_grant{
        "", *st.kubevirt, "its node " + i->second.source + " is now cordoned or being drained"});
      st.waiting.erase(i);
      continue;
    }
    std::string target;
    if (st.options.pin_target_node) {
      auto open = open_targets(i->second.targets, st.kubevirt->closed_nodes);
      if (open.empty() && !i->second.targets.empty()) {
        // Every target closed since evaluation (a drain began): KubeVirt would leave the
        // target pod unschedulable. The candidate ends Skipped; its slot comes back
        // with its migration_finished.
        st.admitted_at[*key] = actor_now(self);
        i->second.promise.deliver(admission_grant{
          "", *st.kubevirt, "every target node is now cordoned or being drained: " + join(i->second.targets)});
        st.waiting.erase(i);
        continue;
      }
      target = choose_target(open, st.inbound).value_or("");
    }
    if (!target.empty())
      ++st.inbound[target];
    st.admitted_at[*key] = actor_now(self);
    i->second.promise.deliver(admission_grant{target, *st.kubevirt, {}});
    st.waiting.erase(i);
  }
  publish_in_flight(self);
}

supervisor_actor::behavior_type supervisor(supervisor_pointer self, supervisor_options options) {
  auto& st = self->state;
  st.options = options;
  st.queue = std::make_unique<admission_queue>(std::max<std::size_t>(1, options.parallelism));
  if (options.kubevirt)
    self->send(options.kubevirt, atom::subscribe_v,
               caf::actor_cast<kubevirt_policy_listener>(self));
  else
    st.kubevirt = kubevirt_policy{}; // nothing to follow: no per-node cap, no hold
  return {
    [=](admission_request& ask) -> caf::result<admission_grant> {
      auto& st = self->state;
      auto key = vmi_key(ask.vmi_namespace, ask.vmi_name);
      if (!ask.adopted_vmim.empty()) {
        // Counted at once, whatever KubeVirt's caps say: it is running already.
        st.queue->mark_in_flight(key, ask.source_node);
        if (!ask.adopted_target.empty())
          ++st.inbound[ask.adopted_target];
        publish_in_flight(self);
        return admission_grant{ask.adopted_target, st.kubevirt.value_or(kubevirt_policy{}), {}};
      }
      if (st.stopped)
        return to_caf_error(ec::cancelled, "request stopped");
      if (auto i = st.admitted_at.find(key); i != st.admitted_at.end()
          && is_cooling_off(i->second, st.options.cool_off_period, actor_now(self)))
        return to_caf_error(ec::invalid_request, "cooling off");
      if (!st.queue->push(key, ask.source_node))
        return to_caf_error(ec::invalid_request, "already admitted");
      auto promise = self->make_response_promise<admission_grant>();
      st.waiting[key] = waiting_candidate{promise, std::move(ask.target_nodes), ask.source_node};
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
    [=](const kubevirt_policy& p) {
      follow(self, p);
      admit_next(self);
    },
    [=](atom::unpinned) {
      say_unpinned(self, "KubeVirt pruned spec.addedNodeSelector from a created VMIM");
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
