// What a podHyperconvergence run reads before it evaluates: its own informers, listed
// on demand (the first run waits for them), then every snapshot side by side, the
// opted-out namespaces and the storage driver's replica nodes (asked as the VM kind asks
// it: about every driver-owned PV a considered pod uses, by name).
#include <map>
#include <memory>
#include <set>
#include <string>

#include <caf/typed_event_based_actor.hpp>

#include "actors/clock.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_run_state.hpp"
#include "model/duration.hpp"

namespace schedopt::pod_run {

namespace {

/// How often a run that waits for the kind's informers asks them again.
constexpr duration informer_sync_poll = std::chrono::milliseconds(200);

void ask_replicas(run_pointer self) {
  auto& st = self->state;
  auto owns = st.ctx.driver.owns;
  const auto& cfg = st.ctx.config;
  pv_owned_predicate owned = [owns, &cfg](const persistent_volume& pv) { return owns(pv, cfg); };
  st.in.volumes = driver_volumes_of(st.in.pods, sorted_objects<persistent_volume_claim>{st.in.pvcs},
                                    sorted_objects<persistent_volume>{st.in.pvs}, owned);
  if (!st.ctx.explain) { // explain shows each claim and volume; a run needs them no more
    st.in.pvcs = {};
    st.in.pvs = {};
  }
  replica_query q;
  q.volumes = volumes_to_query(st.in.volumes);
  q.nodes = st.in.nodes;
  if (q.volumes.empty())
    return evaluate_and_run(self);
  ask_driver(self, std::move(q), [=](replica_answer& answer) {
    auto& in = self->state.in;
    in.replicas = std::move(answer.replicas);
    for (auto& [pv, why] : answer.errors)
      in.replica_errors[pv] = why;
    evaluate_and_run(self);
  });
}

void ask_opted_out_namespaces(run_pointer self) {
  read_opted_out(self, [=](std::set<std::string> names) {
    self->state.in.opted_out_namespaces = std::move(names);
    ask_replicas(self);
  });
}

void take_snapshots(run_pointer self) {
  const auto& st = self->state;
  auto in = [=]() -> inputs& { return self->state.in; };
  read_snapshots(self)
    .add(st.informers.pods, [=](auto pods) { in().pods = std::move(pods); })
    .add(st.informers.stateful_sets, [=](auto sets) { in().stateful_sets = std::move(sets); })
    .add(st.informers.replica_sets, [=](auto sets) { in().replica_sets = std::move(sets); })
    .add(st.informers.pod_disruption_budgets, [=](auto bs) { in().budgets = std::move(bs); })
    .add(st.ctx.pvcs, [=](auto pvcs) { in().pvcs = std::move(pvcs); })
    .add(st.ctx.pvs, [=](auto pvs) { in().pvs = std::move(pvs); })
    .add(st.ctx.nodes, [=](auto nodes) { in().nodes = values_of(nodes); })
    .add(st.ctx.vmis, [=](auto vmis) { in().vmis = std::move(vmis); })
    .add(st.ctx.vmims, [=](auto vmims) { in().vmims = values_of(vmims); })
    .then([=] { ask_opted_out_namespaces(self); });
}

} // namespace

void wait_for_informers(run_pointer self) {
  auto answers = std::make_shared<std::map<std::string, bool>>();
  auto asked = std::make_shared<int>(4);
  auto answered = [=](const std::string& what, bool synced) {
    (*answers)[what] = synced;
    if (--*asked > 0 || self->state.replied)
      return;
    std::string missing;
    for (auto& [name, ok] : *answers)
      if (!ok)
        missing += (missing.empty() ? "" : ", ") + name;
    if (missing.empty())
      return take_snapshots(self);
    if (actor_now(self) >= self->state.sync_deadline)
      return fail_run(self, run_failure_kind::api,
                      "cannot read " + missing + ": not listed within "
                        + format_go_duration(informer_sync_timeout)
                        + " (the controller's log says why)");
    self->delayed_send(self, to_clock(informer_sync_poll), atom::tick_v);
  };
  auto ask = [&](const auto& informer, const std::string& what) {
    self->request(informer, caf::infinite, atom::synced_v)
      .then([=](bool synced) { answered(what, synced); },
            [=](caf::error&) { answered(what, false); });
  };
  const auto& informers = self->state.informers;
  ask(informers.pods, "pods");
  ask(informers.stateful_sets, "statefulsets");
  ask(informers.replica_sets, "replicasets");
  ask(informers.pod_disruption_budgets, "poddisruptionbudgets");
}

} // namespace schedopt::pod_run
