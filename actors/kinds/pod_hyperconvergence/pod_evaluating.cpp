// A podHyperconvergence run's evaluation (model/kinds/pod_hyperconvergence/
// pod_evaluation): the skips go to the status block, a plan or an explanation is left in
// the result for the command to print, and a run that evicts writes the Migrating stage
// before it starts the engine with its candidates and the evictions it adopts.
#include <set>
#include <string>

#include <caf/typed_event_based_actor.hpp>

#include "actors/clock.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_run_state.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_settings.hpp"
#include "model/kinds/pod_hyperconvergence/pod_explanation_report.hpp"
#include "model/kinds/pod_hyperconvergence/pod_plan_report.hpp"

namespace schedopt::pod_run {

namespace {

void log_evaluation(const run_state& st, const evaluation_result& result) {
  for (auto& w : result.warnings)
    log_kv(spdlog::level::warn, w, {{"request", st.request.metadata.name}});
  const auto& c = result.counts;
  log_kv(spdlog::level::info,
         std::to_string(c.considered) + " pods considered: " + std::to_string(c.hyperconverged)
           + " hyperconverged, " + std::to_string(c.semi) + " semi, " + std::to_string(c.non)
           + " non; " + std::to_string(c.eligible) + " eligible, " + std::to_string(c.skipped)
           + " skipped, " + std::to_string(c.outstanding) + " outstanding"
           + (st.resume ? " (resumed: " + std::to_string(st.resumed.in_flight.size())
                            + " evictions adopted)"
                        : ""),
         {{"request", st.request.metadata.name}});
}

/// `schedopt explain --kind podHyperconvergence` or `plan`: the report for the command to
/// print; nothing is evicted or written.
void report(run_pointer self, const evaluation_input& in, const evaluation_result& result) {
  auto& st = self->state;
  auto budgets = budgets_by_pod(st.in.pods, values_of(st.in.budgets));
  if (st.ctx.explain) {
    sorted_objects<persistent_volume_claim> pvcs{st.in.pvcs};
    sorted_objects<persistent_volume> pvs{st.in.pvs};
    pod_explanation_sources sources{in, result, &pvcs, &pvs, &budgets};
    auto text = render_pod_explain(st.ctx.explain->output, st.ctx.explain->key, pod_explainer{sources});
    if (text) // else the operator's mistake (the query is this run's spec): one line, no log
      st.result.report = std::move(*text);
    else
      st.result.run_failure = run_failure{run_failure_kind::invalid_spec, text.err().message};
    return finish_run(self);
  }
  st.result.report = st.ctx.plan_output == "json" ? render_pod_plan_json(result, budgets)
                                                   : render_pod_plan_table(result, budgets);
  st.result.skipped = static_cast<int64_t>(result.skipped.size());
  st.result.outstanding = result.outstanding;
  finish_run(self);
}

/// On resume: what the recorded block says was done, and the evictions to adopt.
void plan_resumed_run(run_state& st) {
  pod_hyperconvergence_status recorded;
  if (const auto* block = block_of(st.request.status, st.kind_field))
    for (const auto& d : block->details)
      recorded.details.push_back({d.name, d.namespace_,
                                  d.status == detail_status::successful ? pod_result::successful
                                  : d.status == detail_status::skipped  ? pod_result::skipped
                                                                        : pod_result::failed,
                                  d.reason});
  recorded.skipped = st.result.skipped;
  st.resumed = plan_resume(recorded, st.in.pods, st.in.stateful_sets, st.in.replica_sets,
                           st.request.metadata.uid);
}

void keep_owner_annotations(run_state& st) {
  for (const auto& s : st.in.stateful_sets)
    st.owner_annotations[describe(workload_ref{workload_kind::stateful_set, s->metadata.namespace_,
                                               s->metadata.name, s->metadata.uid})] =
      s->metadata.annotations;
  for (const auto& r : st.in.replica_sets)
    st.owner_annotations[describe(workload_ref{workload_kind::replica_set, r->metadata.namespace_,
                                               r->metadata.name, r->metadata.uid})] =
      r->metadata.annotations;
}

evaluation_input evaluation_input_of(run_pointer self) {
  auto& st = self->state;
  auto& cfg = st.ctx.config;
  evaluation_input in;
  in.pods = st.in.pods;
  in.volumes = std::move(st.in.volumes);
  in.replicas = std::move(st.in.replicas);
  in.replica_errors = std::move(st.in.replica_errors);
  in.nodes = st.in.nodes;
  in.usage = usage_by_node(st.in.pods, st.in.vmis, st.in.vmims);
  in.stateful_sets = st.in.stateful_sets;
  in.replica_sets = st.in.replica_sets;
  in.excluded_namespaces.insert(cfg.exclude_namespaces.begin(), cfg.exclude_namespaces.end());
  in.opted_out_namespaces = st.in.opted_out_namespaces;
  in.storage_aware_schedulers = pod_settings_of(cfg).storage_aware_schedulers;
  in.handled = st.resumed.handled;
  in.request_uid = st.request.metadata.uid;
  in.cool_off_period = st.run.cool_off;
  in.now = actor_now(self);
  in.max_per_run = std::max<int64_t>(0, cfg.max_non_hyperconverged_per_run - st.resumed.slots_used);
  in.every_pod = st.ctx.explain || !st.ctx.plan_output.empty() || cfg.dry_run;
  return in;
}

/// The Migrating stage is written: the engine starts with the adopted evictions, the
/// candidates, and the ledger entries of pods a resumed run no longer evicts.
void start_engine(run_pointer self, const std::vector<eviction_candidate>& eligible) {
  auto& st = self->state;
  engine_settings s;
  s.max_parallel = static_cast<std::size_t>(st.run.max_parallel_evictions);
  s.ready_timeout = pod_settings_of(st.ctx.config).pod_ready_timeout;
  s.run_deadline = st.run_deadline;
  s.request_uid = st.request.metadata.uid;
  auto now = actor_now(self);
  st.engine = std::make_unique<eviction_engine>(s, now);
  static const string_map none;
  auto annotations = [&](const workload_ref& w) -> const string_map& {
    auto i = st.owner_annotations.find(describe(w));
    return i == st.owner_annotations.end() ? none : i->second;
  };
  for (auto& e : st.resumed.in_flight)
    st.engine->adopt(e, annotations(e.owner), now);
  std::set<std::string> eligible_keys;
  for (auto& c : eligible) {
    eligible_keys.insert(pod_key(c.target->metadata.namespace_, c.target->metadata.name));
    st.engine->add(c, annotations(c.owner));
  }
  for (auto& [owner, name] : st.resumed.not_evicted)
    if (!eligible_keys.count(pod_key(owner.namespace_, name)))
      st.engine->drop_entry(owner, annotations(owner), name);
  log_kv(spdlog::level::info,
         "eviction engine with " + std::to_string(s.max_parallel) + " parallel evictions",
         {{"request", st.request.metadata.name}, {"candidates", std::to_string(eligible.size())},
          {"adopted", std::to_string(st.resumed.in_flight.size())}});
  self->become(evicting(self));
  step(self);
}

/// Writes the Migrating stage before the first write of the run (so a restart knows to
/// resume it), then starts the engine.
void write_stage_then_start(run_pointer self, std::vector<eviction_candidate> eligible) {
  auto& st = self->state;
  stage_change change{st.request.metadata.uid, request_stage::migrating,
                      request_status::in_progress, st.request.metadata.generation};
  self->request(st.ctx.status, caf::infinite, change)
    .then(
      [=](bool written) {
        if (!written)
          return finish_run(self);
        start_engine(self, eligible);
      },
      [=](caf::error& err) {
        fail_run(self, run_failure_kind::internal, "status writer failed: " + error_message(err));
      });
}

} // namespace

void evaluate_and_run(run_pointer self) {
  auto& st = self->state;
  auto& cfg = st.ctx.config;
  if (st.resume)
    plan_resumed_run(st);
  keep_owner_annotations(st);
  auto in = evaluation_input_of(self);
  auto result = evaluate(in);
  publish_placement("schedopt_pods", result.counts);
  log_evaluation(st, result);
  if (st.ctx.explain || !st.ctx.plan_output.empty())
    return report(self, in, result);
  // Engine outcomes keep their detail slots whatever the skips take.
  auto engine_items = static_cast<int64_t>(result.eligible.size() + st.resumed.in_flight.size());
  if (engine_items > 0)
    self->send(st.ctx.status, atom::reserve_v, st.request.metadata.uid, st.kind_field, engine_items);
  for (auto& d : new_skips(result.skipped, st.resumed.unnamed_skips))
    record_outcome(self, d);
  st.result.outstanding.insert(st.result.outstanding.end(), result.outstanding.begin(),
                               result.outstanding.end());
  if (cfg.dry_run) {
    spdlog::info("dry run: request {} would evict {} pods\n{}", st.request.metadata.name,
                 result.eligible.size(),
                 render_pod_plan_table(result, budgets_by_pod(st.in.pods, values_of(st.in.budgets))));
    return finish_run(self);
  }
  if (result.eligible.empty() && st.resumed.in_flight.empty() && st.resumed.not_evicted.empty())
    return finish_run(self);
  write_stage_then_start(self, std::move(result.eligible));
}

} // namespace schedopt::pod_run
