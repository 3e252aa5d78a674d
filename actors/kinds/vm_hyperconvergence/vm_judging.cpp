// A vmHyperconvergence run's evaluation (model/kinds/vm_hyperconvergence/evaluation),
// batch by batch: the eligible candidates are handed to the engine as they are found, and
// the skips, each with its bounded explanation, are recorded at the end. Runs that create
// nothing leave their report (plan, explanation) in the result for the command to print.
#include <algorithm>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <caf/typed_event_based_actor.hpp>

#include "actors/clock.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_run_state.hpp"
#include "k8s/metrics.hpp"
#include "model/kinds/vm_hyperconvergence/explanation_report.hpp"
#include "model/kinds/vm_hyperconvergence/plan_report.hpp"
#include "model/kinds/vm_hyperconvergence/settled_placement.hpp"
#include "model/placement/cool_off.hpp"
#include "model/placement/node_admission.hpp"

namespace schedopt::vm_run {

namespace {

/// VMIs judged per message: a few milliseconds of work, so the first candidates are
/// handed on at once and stage writes or a stop wait at most that long.
constexpr std::size_t vmis_per_batch = 1024;

void publish_counts(const evaluation_counts& c) {
  publish_placement("schedopt_vmis", c);
  auto& m = k8s::default_metrics();
  m.counter_add("schedopt_candidates_total", {{"verdict", "eligible"}}, double(c.eligible));
  m.counter_add("schedopt_candidates_total", {{"verdict", "skipped"}}, double(c.skipped));
  m.counter_add("schedopt_candidates_total", {{"verdict", "outstanding"}}, double(c.outstanding));
}

/// Plans for the VMIMs of this request found at resume, adopted, never created twice.
std::vector<candidate_plan> adopted_plans(const run_state& st) {
  return schedopt::adopted_plans(st.in, st.ours, st.ledger, st.request.metadata.name,
                                 st.request.metadata.uid, st.ctx.config.vm_cool_off_annotation);
}

/// Plans for the candidates judged eligible since the last call, in (namespace, name) order
/// (docs/design.md §2.7).
std::vector<candidate_plan> new_eligible_plans(run_state& st) {
  std::vector<candidate_plan> plans;
  auto& pass = *st.pass;
  auto& eligible = pass.judge->result().eligible;
  for (; pass.handed < eligible.size(); ++pass.handed) {
    auto& vmi = pass.judge->eligible_vmi(pass.handed);
    plans.push_back(candidate_plan{st.request.metadata.name, st.request.metadata.uid, vmi,
                                   eligible[pass.handed].target_nodes, std::nullopt,
                                   cool_off_before(st.in, vmi, st.ctx.config.vm_cool_off_annotation),
                                   eligible[pass.handed].replica_holders});
  }
  return plans;
}

/// What a run that creates nothing leaves: the explanation or the plan, for the command
/// to print; a dry run's plan is logged.
void report_without_migrating(run_pointer self, const explanation_sources& sources) {
  auto& st = self->state;
  const auto& result = sources.result;
  switch (st.progress.mode()) {
    case run_mode::explain:
      if (auto text = render_explain(*st.ctx.explain, explainer{sources}))
        st.result.report = std::move(*text);
      else // the operator's mistake (the query is this run's spec): one line, no log
        st.result.run_failure = run_failure{run_failure_kind::invalid_spec, text.err().message};
      break;
    case run_mode::plan:
      st.result.report = st.ctx.plan_output == "json" ? render_plan_json(result)
                                                       : render_plan_table(result);
      st.result.skipped = static_cast<int64_t>(result.skipped.size());
      st.result.outstanding = result.outstanding;
      break;
    default:
      spdlog::info("dry run: request {} would migrate {} VMs\n{}", st.request.metadata.name,
                   result.eligible.size(), render_plan_table(result));
  }
  reply(self);
}

void log_evaluation(const run_state& st, const evaluation_result& result) {
  const auto& c = result.counts;
  const auto& t = st.times;
  auto ms = [](double v) { return fmt::format("{:.0f}", v); };
  log_kv(spdlog::level::info,
         fmt::format("{} VMIs considered: {} hyperconverged, {} semi, {} non; "
                     "{} eligible, {} skipped, {} outstanding{}",
                     c.considered, c.hyperconverged, c.semi, c.non, c.eligible, c.skipped,
                     c.outstanding,
                     st.resume ? " (resumed: " + std::to_string(st.ours.size()) + " VMIMs adopted)"
                               : ""),
         {{"request", st.request.metadata.name},
          {"snapshots_ms", ms(t.snapshots_ms)},
          {"virtualmachines_ms", ms(t.vms_ms)},
          {"prepare_ms", ms(t.prepare_ms)},
          {"driver_ms", ms(t.driver_ms)},
          {"lead_ms", t.lead_ms < 0 ? std::string("none") : ms(t.lead_ms)},
          {"first_handoff_ms", t.first_handoff_ms < 0 ? std::string("none") : ms(t.first_handoff_ms)},
          {"evaluate_ms", ms(phase_times::since(t.judging))}});
}

void finish_evaluation(run_pointer self) {
  auto& st = self->state;
  st.progress.evaluation_finished();
  auto result = st.pass->judge->take_result();
  publish_counts(result.counts);
  log_evaluation(st, result);
  explanation_sources sources{st.pass->in, result, st.in.vmims,
                              st.ctx.explain ? &st.in.explained_pvcs : nullptr,
                              st.ctx.explain ? st.ctx.explain->next : std::nullopt};
  auto mode = st.progress.mode();
  if (mode == run_mode::explain || mode == run_mode::plan)
    return report_without_migrating(self, sources);
  auto& uid = st.request.metadata.uid;
  if (mode == run_mode::dry_run) // what a run would reserve: its candidates' detail slots
    self->send(st.ctx.status, atom::reserve_v, uid, st.kind_field,
               static_cast<int64_t>(adopted_plans(st).size() + result.eligible.size()));
  // Skips not yet counted (all of them on a fresh run); engine results keep their
  // detail slots, reserved as their plans were handed on.
  auto skips = st.ledger.new_skips(explained_skips(sources));
  for (auto& d : skips)
    self->send(st.ctx.status, detail_result{uid, st.kind_field, d});
  st.result.skipped += static_cast<int64_t>(skips.size());
  st.result.outstanding.insert(st.result.outstanding.begin(), result.outstanding.begin(),
                               result.outstanding.end());
  if (mode == run_mode::dry_run)
    return report_without_migrating(self, sources);
  st.pass.reset(); // the evaluation's memory goes before the candidates finish
  maybe_reply(self);
}

} // namespace

// What the evaluation needs besides the driver's answer and the VirtualMachines, worked
// out while the driver and the VirtualMachines are asked (at scale both take a while).
void prepare_evaluation(run_pointer self) {
  auto& st = self->state;
  auto& cfg = st.ctx.config;
  auto& uid = st.request.metadata.uid;
  auto prepared = phase_times::clock::now();
  // Resume: this request's VMIMs are adopted, never created twice.
  st.ours = vmims_of_request(st.in.vmims, uid);
  for (auto& [key, m] : st.ours)
    st.ours_keys.insert(key);
  // What the recorded status already accounts for (empty on a fresh run). VMs it names
  // and VMs with a VMIM of ours are not evaluated again: each is accounted for once.
  if (const auto* recorded = block_of(st.request.status, st.kind_field); recorded && st.resume)
    st.ledger = resume_ledger{*recorded};
  // A VMI read before its migration's end reached the informer is judged where it runs.
  if (auto settled = settle_finished_migrations(st.in.vmis, st.in.vmims))
    log_kv(spdlog::level::debug, "VMIs settled on their succeeded migrations' targets",
           {{"request", st.request.metadata.name}, {"vmis", std::to_string(settled)}});
  auto& in = st.pass.emplace().in;
  in.usage = usage_by_node(st.in.vmis, st.in.vmims); // every VMI, evaluated or not
  in.in_flight = in_flight_migrations_by_vmi(st.in.vmims);
  if (st.ledger.empty() && st.ours_keys.empty()) { // a fresh run: every VMI
    in.vmis = st.in.vmis;
  } else {
    for (auto& v : st.in.vmis) {
      auto key = vmi_key(v->metadata.namespace_, v->metadata.name);
      if (!st.ledger.accounted(key) && !st.ours_keys.count(key))
        in.vmis.push_back(v);
    }
  }
  in.nodes = st.in.nodes;
  in.excluded_namespaces.insert(cfg.exclude_namespaces.begin(), cfg.exclude_namespaces.end());
  in.cool_off_period = st.cool_off;
  in.max_non_hyperconverged_per_run =
    std::max<int64_t>(0, cfg.max_non_hyperconverged_per_run - st.ledger.slots_used(st.ours_keys));
  in.every_vmi = !st.progress.creates_vmims();
  st.times.prepare_ms = phase_times::since(prepared);
}

// The rest, once the VirtualMachines' records and the opted-out namespaces are read.
void complete_preparation(run_pointer self) {
  auto& st = self->state;
  auto prepared = phase_times::clock::now();
  auto& in = st.pass->in;
  auto last = last_migrations(st.in, st.ctx.config.vm_cool_off_annotation,
                              st.request.metadata.uid, st.ours_keys);
  for (auto& bad : last.ignored)
    log_kv(spdlog::level::warn, "ignoring cool-off record",
           {{"request", st.request.metadata.name}, {"namespace", bad.namespace_},
            {"vmi", bad.vmi}, {"error", bad.why}});
  in.last_migration = std::move(last.by_vmi);
  in.opted_out_vms = st.in.opted_out_vms;
  in.opted_out_namespaces = st.in.opted_out_namespaces;
  st.times.prepare_ms += phase_times::since(prepared);
}

/// The batches are separate messages so stage writes, candidate results and a stop are
/// served between.
void judge_batch(run_pointer self) {
  auto& st = self->state;
  if (st.progress.stopped())
    return maybe_reply(self);
  bool every_vmi = st.pass->in.every_vmi;
  auto& judge = *st.pass->judge;
  std::size_t batch = every_vmi ? std::numeric_limits<std::size_t>::max() : vmis_per_batch;
  bool more;
  if (st.progress.replicas_complete()) {
    more = judge.advance(batch);
  } else { // on the lead answer: only the VMIs it covers
    auto& lead = st.lead.covered;
    auto covered = [&lead](const virtual_machine_instance* vmi) {
      return vmi && std::binary_search(lead.begin(), lead.end(),
                                       std::make_pair(std::string(vmi->metadata.namespace_),
                                                      vmi->metadata.name));
    };
    for (; batch > 0 && covered(judge.upcoming()); --batch)
      judge.advance(1);
    more = !judge.done();
    st.judging_paused = more && !covered(judge.upcoming());
  }
  if (!every_vmi) {
    auto plans = new_eligible_plans(st);
    if (!plans.empty() && st.times.first_handoff_ms < 0)
      st.times.first_handoff_ms = phase_times::since(st.times.judging);
    hand_off(self, std::move(plans));
  }
  if (st.judging_paused)
    return; // judge_the_rest goes on
  if (more)
    return self->send(self, atom::tick_v);
  finish_evaluation(self);
}

void judge_the_rest(run_pointer self) {
  auto& st = self->state;
  if (!st.pass || !st.pass->judge) // every VMI was the lead's, or the run ended
    return;
  st.pass->in.replicas = std::move(st.in.replicas);
  st.pass->judge->replicas_replaced();
  if (std::exchange(st.judging_paused, false))
    judge_batch(self);
}

void begin_judging(run_pointer self) {
  auto& st = self->state;
  st.times.judging = phase_times::clock::now();
  auto& pass = *st.pass;
  auto& in = pass.in;
  in.mapper = std::move(st.in.mapper);
  in.volumes = std::move(st.in.volumes);
  in.replicas = std::move(st.progress.replicas_complete() ? st.in.replicas : st.lead.replicas);
  in.now = actor_now(self);
  // A run that may migrate writes Migrating whatever it finds (with no candidate it goes
  // on to Final): written now, the write's round trip is over by the first candidate.
  bool migrates = st.progress.creates_vmims();
  if (migrates)
    start_engine(self);
  pass.judge.emplace(in);
  if (migrates)
    hand_off(self, adopted_plans(st)); // adopted VMIMs first, as they were created
  judge_batch(self);
}

} // namespace schedopt::vm_run
