// vmHyperconvergence kind actor. Evaluation is
// model/kinds/vm_hyperconvergence/evaluation; this actor gathers the inputs (informer
// snapshots, VM annotations, the driver's replica map), records the skips (each with its
// bounded explanation, model/kinds/vm_hyperconvergence/explanation), and supervises one
// candidate actor per eligible VM.
#include "actors/kinds/vm_hyperconvergence/vm_hyperconvergence_actor.hpp"

#include <chrono>
#include <cstdio>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/kinds/vm_hyperconvergence/candidate_actor.hpp"
#include "actors/kinds/vm_hyperconvergence/supervisor_actor.hpp"
#include "actors/logging.hpp"
#include "actors/opted_out_namespaces.hpp"
#include "actors/system_config.hpp"
#include "k8s/metrics.hpp"
#include "model/decode.hpp"
#include "model/placement/cool_off.hpp"
#include "model/kinds/vm_hyperconvergence/evaluation.hpp"
#include "model/kinds/vm_hyperconvergence/explanation_report.hpp"
#include "model/placement/parallelism.hpp"
#include "model/kinds/vm_hyperconvergence/plan_report.hpp"
#include "model/placement/run_floors.hpp"
#include "model/kinds/vm_hyperconvergence/run_inputs.hpp"
#include "model/kinds/vm_hyperconvergence/run_progress.hpp"
#include "model/kinds/vm_hyperconvergence/settled_placement.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"
#include "model/ownership_labels.hpp"
#include "model/outcome.hpp"
#include "model/resume_ledger.hpp"
#include "model/name_list.hpp"

namespace schedopt {

namespace {

/// How often a run looks at its maxRunDuration deadline. A pending check keeps the kind's
/// actor alive after its run ended (CAF's delayed message holds its receiver and cannot be
/// cancelled), so this bounds how long each ended run's memory outlives it; one wakeup a
/// second during a run costs nothing measurable.
constexpr duration run_deadline_check_interval = std::chrono::seconds(1);

/// Wall time of each input step, logged with the evaluation's counts.
struct phase_times {
  using clock = std::chrono::steady_clock;
  clock::time_point started = clock::now();
  double snapshots_ms = 0;
  double vms_ms = 0;
  double driver_ms = 0;
  double prepare_ms = 0;        // the evaluation's driver-independent part
  clock::time_point judging;    // the driver answered, the VMIs are judged from here
  double first_handoff_ms = -1; // judging to the first candidates handed on; -1: none
  static double since(clock::time_point t) {
    return std::chrono::duration<double, std::milli>(clock::now() - t).count();
  }
};

/// VMIs judged per message: a few milliseconds of work, so the first candidates are
/// handed on at once and stage writes or a stop wait at most that long.
constexpr std::size_t vmis_per_batch = 1024;

/// The evaluation from its preparation (while the driver answers) to its last batch.
struct evaluation_pass {
  evaluation_input in;
  std::optional<evaluator> judge; // from the first batch on
  std::size_t handed = 0;         // judge's eligible entries handed to the engine
};

struct kind_state {
  static inline const char* name = "vm-hyperconvergence";
  controller_context ctx;
  scheduling_optimization request;
  vm_hyperconvergence_spec spec; // this kind's fragment of the request's spec
  bool resume = false;
  duration cool_off{};
  caf::typed_response_promise<kind_result> promise;
  /// Which step may follow which (model/kinds/vm_hyperconvergence/run_progress).
  run_progress progress{run_mode::migrate};
  run_inputs in;
  phase_times times;
  std::map<std::string, virtual_machine_instance_migration> ours; // adopted, by VMI key
  std::set<std::string> ours_keys;
  resume_ledger ledger;
  /// Set from the evaluation's preparation until its last batch is judged.
  std::optional<evaluation_pass> pass;
  std::vector<candidate_plan> queued; // handed on before the engine started
  supervisor_actor supervisor;
  kind_result result;
  std::vector<std::string> failed_vms;
  timestamp run_deadline{}; // no VMIM is created past it (maxRunDuration)
};

using kind_pointer = vm_hyperconvergence_actor::stateful_pointer<kind_state>;

/// What the command running this kind asks of it: `schedopt explain`, `plan`, a dry run
/// or a run that migrates.
run_mode mode_of(const controller_context& ctx) {
  if (ctx.explain)
    return run_mode::explain;
  if (!ctx.plan_output.empty())
    return run_mode::plan;
  return ctx.config.dry_run ? run_mode::dry_run : run_mode::migrate;
}

void reply(kind_pointer self) {
  auto& st = self->state;
  if (!st.progress.reply())
    return;
  if (!st.failed_vms.empty()) {
    self->send(st.ctx.events,
               event_record{request_reference(st.request), "Warning", "MigrationFailed",
                            std::to_string(st.failed_vms.size()) + " live migrations failed: "
                              + first_names(st.failed_vms, 10)});
  }
  st.promise.deliver(st.result);
  self->quit();
}

void fail_run(kind_pointer self, run_failure_kind kind, std::string why) {
  if (self->state.progress.current() == run_progress::phase::done)
    return; // the other input step failed first
  log_kv(spdlog::level::err, "run failed",
         {{"request", self->state.request.metadata.name}, {"error", why}});
  self->state.result.run_failure = run_failure{kind, std::move(why)};
  reply(self);
}

void publish_counts(const evaluation_counts& c) {
  auto& m = k8s::default_metrics();
  m.gauge_set("schedopt_vmis", {{"state", "hyperconverged"}}, double(c.hyperconverged));
  m.gauge_set("schedopt_vmis", {{"state", "semi"}}, double(c.semi));
  m.gauge_set("schedopt_vmis", {{"state", "non"}}, double(c.non));
  m.gauge_set("schedopt_vmis", {{"state", "no_driver_volume"}}, double(c.no_driver_volumes));
  m.counter_add("schedopt_candidates_total", {{"verdict", "eligible"}}, double(c.eligible));
  m.counter_add("schedopt_candidates_total", {{"verdict", "skipped"}}, double(c.skipped));
  m.counter_add("schedopt_candidates_total", {{"verdict", "outstanding"}}, double(c.outstanding));
}

/// Looks at the run's deadline again in a while. A timer of the whole maxRunDuration
/// would hold the kind's memory for hours after its run ended (a delayed message keeps
/// its receiver alive), one per request; a short one holds it for at most a second.
void check_run_deadline(kind_pointer self) {
  auto left = self->state.run_deadline - actor_now(self);
  auto wait = std::min<duration>(std::max<duration>(std::chrono::duration_cast<duration>(left), duration{0}),
                                 run_deadline_check_interval);
  self->delayed_send(self, to_clock(wait), atom::timeout_v);
}

/// Replies once nothing is left to wait for: the evaluation ended (or the run stopped),
/// no stage write is pending and every candidate the engine was given is done.
void maybe_reply(kind_pointer self) {
  if (self->state.progress.may_reply())
    reply(self);
}

/// No VMIM is created from now on (the request was deleted, or its run passed
/// maxRunDuration); waits only for a pending stage write and the candidates running.
void stop_creating(kind_pointer self) {
  auto& st = self->state;
  st.progress.stop();
  if (st.supervisor)
    self->send(st.supervisor, atom::stop_v);
  maybe_reply(self);
}

void spawn_candidates(kind_pointer self, std::vector<candidate_plan>& plans) {
  auto& st = self->state;
  st.progress.candidates_spawned(plans.size());
  for (auto& plan : plans)
    spawn_candidate(self, st.ctx, self, st.supervisor, std::move(plan));
  plans.clear();
}

/// Writes the Migrating stage (before any VMIM exists, so a restart knows to adopt),
/// then starts the supervisor and the candidates queued meanwhile. Asked as the judging
/// starts, so the evaluation may still be running when it is written.
void start_engine(kind_pointer self) {
  auto& st = self->state;
  if (!st.progress.request_engine())
    return;
  stage_change change{st.request.metadata.uid, request_stage::migrating,
                      request_status::in_progress, st.request.metadata.generation};
  self->request(st.ctx.status, caf::infinite, change)
    .then(
      [=](bool written) {
        auto& st = self->state;
        if (!st.progress.engine_answered(written))
          return reply(self);
        auto& spec = st.spec;
        auto& cfg = st.ctx.config;
        auto par = clamp_parallelism(spec.max_parallel_migrations, cfg.max_parallel_migrations,
                                     cfg.max_parallel_migrations_limit);
        if (par.clamped) { // said even when nothing is to migrate: the spec is still wrong
          log_kv(spdlog::level::warn, par.message, {{"request", st.request.metadata.name}});
          self->send(st.ctx.events, event_record{request_reference(st.request), "Warning",
                                                 "ParallelismClamped", par.message});
        }
        if (st.progress.current() == run_progress::phase::evaluated && st.queued.empty())
          return maybe_reply(self); // the evaluation found nothing to migrate
        log_kv(spdlog::level::info,
               "migration engine with " + std::to_string(par.effective) + " workers",
               {{"request", st.request.metadata.name}});
        bool explicit_parallelism = spec.max_parallel_migrations.has_value()
                                    || cfg.max_parallel_migrations_explicit;
        st.supervisor = spawn_supervisor( // linked, like every candidate
          self, {static_cast<std::size_t>(par.effective), explicit_parallelism,
                 cfg.pin_target_node, yield_mode_of(cfg.yield_to_kubevirt), st.cool_off, st.ctx.events,
                 request_reference(st.request), st.ctx.kubevirt});
        spawn_candidates(self, st.queued);
        maybe_reply(self);
      },
      [=](caf::error& err) {
        fail_run(self, run_failure_kind::internal, "status writer failed: " + error_message(err));
      });
}

/// Gives plans to the engine (queued while its stage write is pending). Their detail
/// slots are reserved at once, before any skip is sent (skips are sent when the
/// evaluation ends).
void hand_off(kind_pointer self, std::vector<candidate_plan> plans) {
  auto& st = self->state;
  if (plans.empty())
    return;
  self->send(st.ctx.status, atom::reserve_v, st.request.metadata.uid, vm_hyperconvergence_kind,
             static_cast<int64_t>(plans.size()));
  std::move(plans.begin(), plans.end(), std::back_inserter(st.queued));
  if (st.progress.spawns_at_once())
    spawn_candidates(self, st.queued);
}

/// Plans for the VMIMs of this request found at resume, adopted, never created twice.
std::vector<candidate_plan> adopted_plans(const kind_state& st) {
  return schedopt::adopted_plans(st.in, st.ours, st.ledger, st.request.metadata.name,
                                 st.request.metadata.uid, st.ctx.config.vm_cool_off_annotation);
}

/// Plans for the candidates judged eligible since the last call, in (namespace, name) order
/// (docs/design.md §2.7).
std::vector<candidate_plan> new_eligible_plans(kind_state& st) {
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

// Everything the evaluation needs that does not depend on the driver's answer, worked
// out while the driver is still asked (at scale the driver's answer takes a while).
void prepare_evaluation(kind_pointer self) {
  auto& st = self->state;
  auto& cfg = st.ctx.config;
  auto& uid = st.request.metadata.uid;
  // Resume: this request's VMIMs are adopted, never created twice.
  st.ours = vmims_of_request(st.in.vmims, uid);
  for (auto& [key, m] : st.ours)
    st.ours_keys.insert(key);
  // What the recorded status already accounts for (empty on a fresh run). VMs it names
  // and VMs with a VMIM of ours are not evaluated again: each is accounted for once.
  if (const auto* recorded = block_of(st.request.status, vm_hyperconvergence_kind); recorded && st.resume)
    st.ledger = resume_ledger{*recorded};
  // A VMI read before its migration's end reached the informer is judged where it runs.
  if (auto settled = settle_finished_migrations(st.in.vmis, st.in.vmims))
    log_kv(spdlog::level::debug, "VMIs settled on their succeeded migrations' targets",
           {{"request", st.request.metadata.name}, {"vmis", std::to_string(settled)}});
  auto prepared = phase_times::clock::now();
  auto& in = st.pass.emplace().in;
  in.usage = usage_by_node(st.in.vmis, st.in.vmims); // every VMI, evaluated or not
  in.in_flight = in_flight_migrations_by_vmi(st.in.vmims);
  auto last = last_migrations(st.in, cfg.vm_cool_off_annotation, uid, st.ours_keys);
  for (auto& bad : last.ignored)
    log_kv(spdlog::level::warn, "ignoring cool-off record",
           {{"request", st.request.metadata.name}, {"namespace", bad.namespace_},
            {"vmi", bad.vmi}, {"error", bad.why}});
  in.last_migration = std::move(last.by_vmi);
  for (auto& v : st.in.vmis) {
    auto key = vmi_key(v->metadata.namespace_, v->metadata.name);
    if (!st.ledger.accounted(key) && !st.ours_keys.count(key))
      in.vmis.push_back(v);
  }
  in.nodes = st.in.nodes;
  in.excluded_namespaces.insert(cfg.exclude_namespaces.begin(), cfg.exclude_namespaces.end());
  in.opted_out_vms = st.in.opted_out_vms;
  in.opted_out_namespaces = st.in.opted_out_namespaces;
  in.cool_off_period = st.cool_off;
  in.max_non_hyperconverged_per_run =
    std::max<int64_t>(0, cfg.max_non_hyperconverged_per_run - st.ledger.slots_used(st.ours_keys));
  in.every_vmi = !st.progress.creates_vmims();
  st.times.prepare_ms = phase_times::since(prepared);
}

/// Prints an explanation or a plan, or logs a dry run's: runs that create nothing.
void report_without_migrating(kind_pointer self, const explanation_sources& sources) {
  auto& st = self->state;
  const auto& result = sources.result;
  if (st.progress.mode() == run_mode::explain) {
    auto text = render_explain(*st.ctx.explain, explainer{sources});
    if (!text) { // the operator's mistake (the query is this run's spec): one line, no log
      st.result.run_failure = run_failure{run_failure_kind::invalid_spec, text.err().message};
      return reply(self);
    }
    std::fputs(text->c_str(), stdout);
    std::fflush(stdout);
    return reply(self);
  }
  if (st.progress.mode() == run_mode::plan) {
    std::fputs((st.ctx.plan_output == "json" ? render_plan_json(result)
                                             : render_plan_table(result)).c_str(), stdout);
    std::fflush(stdout);
    st.result.skipped = static_cast<int64_t>(result.skipped.size());
    st.result.outstanding = result.outstanding;
    return reply(self);
  }
  spdlog::info("dry run: request {} would migrate {} VMs\n{}", st.request.metadata.name,
               result.eligible.size(), render_plan_table(result));
  reply(self);
}

void finish_evaluation(kind_pointer self) {
  auto& st = self->state;
  st.progress.evaluation_finished();
  auto result = st.pass->judge->take_result();
  auto& in = st.pass->in;
  publish_counts(result.counts);
  log_kv(spdlog::level::info,
         fmt::format("{} VMIs considered: {} hyperconverged, {} semi, {} non; "
                     "{} eligible, {} skipped, {} outstanding{}",
                     result.counts.considered, result.counts.hyperconverged, result.counts.semi,
                     result.counts.non, result.counts.eligible, result.counts.skipped,
                     result.counts.outstanding,
                     st.resume ? " (resumed: " + std::to_string(st.ours.size()) + " VMIMs adopted)"
                               : ""),
         {{"request", st.request.metadata.name},
          {"snapshots_ms", fmt::format("{:.0f}", st.times.snapshots_ms)},
          {"virtualmachines_ms", fmt::format("{:.0f}", st.times.vms_ms)},
          {"prepare_ms", fmt::format("{:.0f}", st.times.prepare_ms)},
          {"driver_ms", fmt::format("{:.0f}", st.times.driver_ms)},
          {"first_handoff_ms", st.times.first_handoff_ms < 0
                                 ? std::string("none")
                                 : fmt::format("{:.0f}", st.times.first_handoff_ms)},
          {"evaluate_ms", fmt::format("{:.0f}", phase_times::since(st.times.judging))}});

  explanation_sources sources{in, result, st.in.vmims,
                              st.ctx.explain ? &st.in.explained_pvcs : nullptr,
                              st.ctx.explain ? st.ctx.explain->next : std::nullopt};
  auto mode = st.progress.mode();
  if (mode == run_mode::explain || mode == run_mode::plan)
    return report_without_migrating(self, sources);
  if (mode == run_mode::dry_run) // what a run would reserve: its candidates' detail slots
    self->send(st.ctx.status, atom::reserve_v, st.request.metadata.uid, vm_hyperconvergence_kind,
               static_cast<int64_t>(adopted_plans(st).size() + result.eligible.size()));
  // Skips not yet counted (all of them on a fresh run); engine results keep their
  // detail slots, reserved as their plans were handed on.
  auto skips = st.ledger.new_skips(explained_skips(sources));
  for (auto& d : skips)
    self->send(st.ctx.status, detail_result{st.request.metadata.uid, vm_hyperconvergence_kind, d});
  st.result.skipped += static_cast<int64_t>(skips.size());
  st.result.outstanding.insert(st.result.outstanding.begin(), result.outstanding.begin(),
                               result.outstanding.end());
  if (mode == run_mode::dry_run)
    return report_without_migrating(self, sources);
  st.pass.reset(); // the evaluation's memory goes before the candidates finish
  maybe_reply(self);
}

/// Judges the next batch of VMIs and hands its eligible candidates on; the batches are
/// separate messages so stage writes, candidate results and a stop are served between.
void judge_batch(kind_pointer self) {
  auto& st = self->state;
  if (st.progress.stopped())
    return maybe_reply(self);
  bool every_vmi = st.pass->in.every_vmi;
  bool more = st.pass->judge->advance(every_vmi ? std::numeric_limits<std::size_t>::max()
                                                : vmis_per_batch);
  if (!every_vmi) {
    auto plans = new_eligible_plans(st);
    if (!plans.empty() && st.times.first_handoff_ms < 0)
      st.times.first_handoff_ms = phase_times::since(st.times.judging);
    hand_off(self, std::move(plans));
  }
  if (more)
    return self->send(self, atom::tick_v);
  finish_evaluation(self);
}

void begin_judging(kind_pointer self) {
  auto& st = self->state;
  st.times.judging = phase_times::clock::now();
  auto& pass = *st.pass;
  auto& in = pass.in;
  in.mapper = std::move(st.in.mapper);
  in.volumes = std::move(st.in.volumes);
  in.replicas = std::move(st.in.replicas);
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

// The VirtualMachine list and the driver lookup run at once; what needs the VMs'
// records is prepared when they are read, and the later one starts the judging.

void vms_step_done(kind_pointer self) {
  auto& st = self->state;
  if (st.progress.vms_read())
    prepare_evaluation(self);
  if (st.progress.begin_judging())
    begin_judging(self);
}

void driver_step_done(kind_pointer self) {
  auto& st = self->state;
  st.progress.replicas_read();
  if (st.progress.begin_judging())
    begin_judging(self);
}

// The driver is asked first, about every PV it owns (its bulk lookup answers for every
// volume anyway). Decoding its answer while it downloads takes a core, so the VMIs are
// mapped to their volumes as they are judged, after it: done here, beside the download,
// the mapping competed for the same CPU and held back both.
void ask_driver(kind_pointer self) {
  auto& st = self->state;
  auto owns = st.ctx.driver.owns;
  const auto& cfg = st.ctx.config;
  replica_query q;
  for (auto& v : st.in.pvs)
    if (owns(*v, cfg))
      q.volumes.push_back(v);
  q.nodes = st.in.nodes;
  // By position, so the answer copies no PV names and the judging hashes none: building
  // and hashing an entry per PV held the first candidate back at scale. An explanation
  // looks its volumes up by name.
  q.by_position = !st.ctx.explain;
  if (q.by_position)
    st.in.replicas.positions = replica_map::positions_of(q.volumes);
  auto asked = phase_times::clock::now();
  self->request(st.ctx.driver_actor, caf::infinite, std::move(q))
    .then(
      [=](replica_answer& answer) {
        auto& in = self->state.in;
        // Taken over whole: this handler runs the evaluation, so a copy would be held
        // beside the answer through it.
        in.replicas.nodes = std::move(answer.replicas);
        in.replicas.by_position = std::move(answer.by_position);
        if (in.replicas.by_position.empty()) // a driver that answers by name only
          in.replicas.positions.clear();
        for (auto& [pv, nodes] : in.replicas.nodes)
          normalize(nodes);
        for (auto& nodes : in.replicas.by_position)
          normalize(nodes);
        for (auto& [pv, why] : answer.errors)
          in.replicas.errors[pv] = why;
        self->state.times.driver_ms = phase_times::since(asked);
        driver_step_done(self);
      },
      [=](caf::error& err) {
        // A driver words its own failures (ec::driver_error); any other error, such as
        // a driver actor that is gone, is worded here.
        auto why = error_message(err);
        if (error_code(err) != ec::driver_error)
          why = driver_failure_reason(why);
        fail_run(self, run_failure_kind::driver, std::move(why));
      });
  // The snapshots are searched as they come (sorted by store key), not indexed or copied.
  if (st.ctx.explain)
    st.in.explained_pvcs = values_of(st.in.pvcs);
  sorted_objects<persistent_volume_claim> pvcs{std::move(st.in.pvcs)};
  sorted_objects<persistent_volume> pvs{std::move(st.in.pvs)};
  st.in.pvcs = {};
  st.in.pvs = {};
  // The state outlives the mapper it holds, so the predicate may refer to its settings.
  pv_owned_predicate owned = [owns, &cfg](const persistent_volume& pv) { return owns(pv, cfg); };
  if (st.ctx.explain) // an explanation shows every VMI's volumes: all mapped and kept
    st.in.volumes = driver_volumes_of(st.in.vmis, pvcs, pvs, owned);
  else
    st.in.mapper = std::make_shared<volume_mapper>(std::move(pvcs), std::move(pvs), std::move(owned));
}

template <class T, class Handle, class Then>
void snapshot(kind_pointer self, const Handle& informer, Then then) {
  self->request(informer, caf::infinite, atom::snapshot_v)
    .then([=](shared_list<T>& items) { then(std::move(items)); },
          [=](caf::error& err) {
            fail_run(self, run_failure_kind::internal,
                     "informer snapshot failed: " + error_message(err));
          });
}

void opt_outs_read(kind_pointer self) {
  auto& st = self->state;
  st.times.vms_ms = phase_times::since(st.times.started) - st.times.snapshots_ms;
  vms_step_done(self);
}

// Namespaces labelled to be left alone (actors/opted_out_namespaces.hpp).
void vms_done(kind_pointer self) {
  read_opted_out_namespaces(
    self, self->state.ctx.api,
    [=](std::set<std::string> names) {
      self->state.in.opted_out_namespaces = std::move(names);
      opt_outs_read(self);
    },
    [=](std::string why) { fail_run(self, run_failure_kind::api, std::move(why)); });
}

/// Keeps a VirtualMachine's cool-off record, if it has one (from the informer or a list).
void keep_vm_record(kind_state& st, const virtual_machine& vm) {
  if (vm.opted_out)
    st.in.opted_out_vms.insert(vmi_key(vm.metadata.namespace_, vm.metadata.name));
  auto record = cool_off_record_of(vm.metadata.annotations, st.ctx.config.vm_cool_off_annotation);
  if (!record.empty())
    st.in.vm_annotations[vmi_key(vm.metadata.namespace_, vm.metadata.name)] = std::move(record);
}

// Without a synced VM informer, VirtualMachines are listed once per run, page by page
// (each page decoded as it arrives), keeping only the cool-off annotation: whole pages
// and every annotation would cost far more memory than one string per VM.
void list_vm_annotations(kind_pointer self, std::string continue_token = {}) {
  k8s::list_request req;
  req.res = k8s::resources::vms;
  req.continue_token = std::move(continue_token);
  req.all_pages = false;
  bool mid_list = !req.continue_token.empty();
  self->request(self->state.ctx.api, caf::infinite, req)
    .then(
      [=](const k8s::list_response& resp) {
        std::string next;
        for (auto& page : resp.pages) {
          auto list = decode_list<virtual_machine>(page);
          if (!list)
            return fail_run(self, run_failure_kind::api,
                            "cannot read VirtualMachines: " + list.err().message);
          for (auto& bad : list->skipped) {
            // Its cool-off record is unknown; the VMIMs still count for it (docs/design.md §4.1).
            log_kv(spdlog::level::warn, "virtualmachine does not decode; skipped",
                   {{"request", self->state.request.metadata.name}, {"namespace", bad.namespace_},
                    {"vm", bad.name}, {"error", bad.why.message}});
            k8s::default_metrics().counter_add("schedopt_decode_errors_total",
                                               {{"resource", "virtualmachines"}});
          }
          for (auto& vm : list->items)
            keep_vm_record(self->state, vm);
          next = list->continue_token;
        }
        if (!next.empty())
          return list_vm_annotations(self, next);
        vms_done(self);
      },
      [=](caf::error& err) {
        // Half a list would hide cool-off records: that run fails.
        if (mid_list)
          return fail_run(self, run_failure_kind::api,
                          "cannot list VirtualMachines: " + error_message(err));
        // Without VirtualMachines (no such API) the VMI annotations and VMIMs still count.
        log_kv(spdlog::level::warn, "cannot list VirtualMachines",
               {{"request", self->state.request.metadata.name}, {"error", error_message(err)}});
        vms_done(self);
      });
}

// Cool-off records of VirtualMachines come from the VM informer once it has listed
// (its store has this controller's own record writes too, fed from their answers): a
// paged list per run, paced by the rate limit, was most of the way to the first VMIM.
void read_vm_annotations(kind_pointer self) {
  auto vms = self->state.ctx.vms;
  if (!vms)
    return list_vm_annotations(self);
  self->request(vms, caf::infinite, atom::synced_v)
    .then(
      [=](bool synced) {
        if (!synced)
          return list_vm_annotations(self);
        self->request(vms, caf::infinite, atom::snapshot_v)
          .then(
            [=](const shared_list<virtual_machine>& all) {
              for (auto& vm : all)
                keep_vm_record(self->state, *vm);
              vms_done(self);
            },
            [=](caf::error&) { list_vm_annotations(self); });
      },
      [=](caf::error&) { list_vm_annotations(self); });
}

void gather(kind_pointer self) {
  auto& ctx = self->state.ctx;
  snapshot<virtual_machine_instance>(self, ctx.vmis, [=](auto vmis) {
    self->state.in.vmis = std::move(vmis);
    snapshot<virtual_machine_instance_migration>(self, self->state.ctx.vmims, [=](auto vmims) {
      self->state.in.vmims = values_of(vmims);
      snapshot<persistent_volume_claim>(self, self->state.ctx.pvcs, [=](auto pvcs) {
        self->state.in.pvcs = std::move(pvcs);
        snapshot<persistent_volume>(self, self->state.ctx.pvs, [=](auto pvs) {
          self->state.in.pvs = std::move(pvs);
          snapshot<node>(self, self->state.ctx.nodes, [=](auto nodes) {
            auto& st = self->state;
            st.in.nodes = values_of(nodes);
            mark_evacuating_nodes(st.in.nodes, st.in.vmis); // never a target (docs/design.md §3.3)
            st.times.snapshots_ms = phase_times::since(st.times.started);
            read_vm_annotations(self);
            ask_driver(self);
          });
        });
      });
    });
  });
}

vm_hyperconvergence_actor::behavior_type vm_hyperconvergence(kind_pointer self,
                                                           controller_context ctx) {
  self->state.ctx = std::move(ctx);
  return {
    [=](kind_run& run) -> caf::result<kind_result> {
      auto& st = self->state;
      st.request = std::move(run.request);
      st.resume = run.resume;
      st.promise = self->make_response_promise<kind_result>();
      st.progress = run_progress{mode_of(st.ctx)};
      st.times = phase_times{};
      if (const auto* vs = block_of(st.request.status, vm_hyperconvergence_kind); vs && st.resume) {
        st.result.successful = vs->successful;
        st.result.failed = vs->failed;
        st.result.skipped = vs->skipped;
      }
      auto decoded = decode_vm_hyperconvergence_spec(run.spec);
      if (!decoded) {
        fail_run(self, run_failure_kind::invalid_spec, "invalid " + decoded.err().message);
        return st.promise;
      }
      st.spec = std::move(*decoded);
      auto& spec = st.spec;
      auto& cfg = st.ctx.config;
      auto cool_off = choose_cool_off(spec.cool_off_period, cfg.cool_off_period,
                                      cfg.min_cool_off_period, vm_hyperconvergence_kind);
      if (!cool_off.error.empty()) {
        fail_run(self, run_failure_kind::invalid_spec, cool_off.error);
        return st.promise;
      }
      st.cool_off = cool_off.effective;
      if (!cool_off.clamped.empty()) {
        log_kv(spdlog::level::warn, cool_off.clamped, {{"request", st.request.metadata.name}});
        self->send(st.ctx.events, event_record{request_reference(st.request), "Warning",
                                               "CoolOffClamped", cool_off.clamped});
      }
      auto now = actor_now(self);
      st.run_deadline = now + run_time_left(st.request.status.start_timestamp, now, cfg.max_run_duration);
      check_run_deadline(self);
      gather(self);
      return st.promise;
    },
    [=](const candidate_done& done) {
      auto& st = self->state;
      if (done.status == detail_status::successful)
        ++st.result.successful;
      else if (done.status == detail_status::failed) {
        ++st.result.failed;
        st.failed_vms.push_back(vmi_key(done.vmi_namespace, done.vmi_name));
      } else if (done.status == detail_status::skipped) {
        ++st.result.skipped; // its targets closed between evaluation and admission
      } else {
        // Stopped before admission: it goes back to the outstanding list.
        st.result.outstanding.push_back(vmi_key(done.vmi_namespace, done.vmi_name));
      }
      st.progress.candidate_done();
      maybe_reply(self);
    },
    [=](atom::tick) { judge_batch(self); },
    [=](atom::timeout) {
      auto& st = self->state;
      if (!st.progress.deadline_matters(st.queued.empty()))
        return;
      if (actor_now(self) < st.run_deadline)
        return check_run_deadline(self);
      auto why = run_deadline_reason(st.ctx.config.max_run_duration);
      log_kv(spdlog::level::warn, why + ": no new migrations; in-flight ones finish",
             {{"request", st.request.metadata.name}});
      self->send(st.ctx.events, event_record{request_reference(st.request), "Warning",
                                             "RunDeadlineReached",
                                             why + ": the rest is left for a later request"});
      st.result.stopped_by = why;
      // Handed on but not yet started: outstanding, like those the supervisor turns away.
      for (auto& plan : st.queued)
        st.result.outstanding.push_back(vmi_key(plan.vmi.metadata.namespace_, plan.vmi.metadata.name));
      st.queued.clear();
      stop_creating(self);
    },
    [=](atom::stop) { stop_creating(self); },
  };
}

} // namespace

void add_vm_hyperconvergence_types(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::schedopt_vm_hyperconvergence>();
}

vm_hyperconvergence_actor spawn_vm_hyperconvergence(caf::local_actor* parent,
                                                    const controller_context& ctx) {
  return parent->spawn<caf::linked>(vm_hyperconvergence, ctx);
}

} // namespace schedopt
