// vmHyperconvergence kind actor. Evaluation is model/evaluation; this actor gathers the
// inputs (informer snapshots, VM annotations, the driver's replica map), records the
// skips (each with its bounded explanation, model/explanation), and supervises one
// candidate actor per eligible VM.
#include "actors/vm_hyperconvergence_actor.hpp"

#include <chrono>
#include <cstdio>
#include <iterator>
#include <limits>
#include <memory>
#include <map>
#include <set>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/candidate_actor.hpp"
#include "actors/clock.hpp"
#include "actors/logging.hpp"
#include "actors/supervisor_actor.hpp"
#include "actors/system_config.hpp"
#include "k8s/metrics.hpp"
#include "model/cool_off.hpp"
#include "model/decode.hpp"
#include "model/evaluation.hpp"
#include "model/parallelism.hpp"
#include "model/plan_report.hpp"
#include "model/resume_ledger.hpp"
#include "model/run_floors.hpp"
#include "model/settled_placement.hpp"
#include "model/vmim_outcome.hpp"

namespace schedopt {

namespace {

/// How often a run looks at its maxRunDuration deadline. A pending check keeps the kind's
/// actor alive after its run ended (CAF's delayed message holds its receiver and cannot be
/// cancelled), so this bounds how long each ended run's memory outlives it; one wakeup a
/// second during a run costs nothing measurable.
constexpr duration run_deadline_check_interval = std::chrono::seconds(1);

/// Everything the evaluation reads, gathered step by step.
struct inputs {
  // The big stores are read as shared snapshots (copy-on-write, k8s/informer_store.hpp).
  shared_list<virtual_machine_instance> vmis;
  std::vector<virtual_machine_instance_migration> vmims;
  shared_list<persistent_volume_claim> pvcs;
  std::vector<persistent_volume_claim> explained_pvcs; // kept for `schedopt explain` only
  shared_list<persistent_volume> pvs;
  std::vector<node> nodes;
  std::map<std::string, string_map> vm_annotations; // "<ns>/<name>" of VirtualMachines
  std::set<std::string> opted_out_vms;              // "<ns>/<name>", labelled to be left alone
  std::set<std::string> opted_out_namespaces;       // labelled to be left alone
  std::shared_ptr<volume_mapper> mapper;            // step 1, done as the VMIs are judged
  std::vector<vmi_volumes> volumes;                 // step 1 done first, for `explain`
  replica_map replicas;                             // the driver's answer
  bool vms_read = false;                            // the VirtualMachine list is done
  bool replicas_read = false;                       // the driver answered
};

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

enum class engine_state {
  none,     // Migrating not asked for: inputs still gathered, or a run that creates nothing
  starting, // the Migrating stage is being written; candidates queue meanwhile
  running,  // the supervisor runs; candidates are spawned as they are handed on
};

struct kind_state {
  static inline const char* name = "vm-hyperconvergence";
  controller_context ctx;
  scheduling_optimization request;
  bool resume = false;
  duration cool_off{};
  caf::typed_response_promise<kind_result> promise;
  inputs in;
  phase_times times;
  // The evaluation, prepared while the driver answers, then judged batch by batch.
  std::map<std::string, virtual_machine_instance_migration> ours; // adopted, by VMI key
  std::set<std::string> ours_keys;
  resume_ledger ledger;
  std::unique_ptr<evaluation_input> eval_in;
  std::unique_ptr<evaluator> eval;
  std::size_t handed = 0; // eval's eligible entries handed to the engine
  bool evaluated = false;
  engine_state engine = engine_state::none;
  std::vector<candidate_plan> queued; // handed on before the engine started
  supervisor_actor supervisor;
  std::size_t running = 0; // candidates spawned and not done
  kind_result result;
  std::vector<std::string> failed_vms;
  bool stopped = false;
  bool replied = false;
  timestamp run_deadline{}; // no VMIM is created past it (maxRunDuration)
};

using kind_pointer = optimization_kind_actor::stateful_pointer<kind_state>;

void reply(kind_pointer self) {
  auto& st = self->state;
  if (st.replied)
    return;
  st.replied = true;
  if (!st.failed_vms.empty()) {
    std::string list;
    for (std::size_t i = 0; i < st.failed_vms.size() && i < 10; ++i)
      list += (i ? ", " : "") + st.failed_vms[i];
    if (st.failed_vms.size() > 10)
      list += ", ...";
    self->send(st.ctx.events,
               event_record{request_reference(st.request), "Warning", "MigrationFailed",
                            std::to_string(st.failed_vms.size()) + " live migrations failed: "
                              + list});
  }
  st.promise.deliver(st.result);
  self->quit();
}

void fail_run(kind_pointer self, std::string why) {
  if (self->state.replied)
    return; // the other input step failed first
  log_kv(spdlog::level::err, "run failed",
         {{"request", self->state.request.metadata.name}, {"error", why}});
  self->state.result.run_failure = std::move(why);
  reply(self);
}

/// The annotations of a VMI's cool-off holder (cool_off_holder_of) as this run read them:
/// its controlling VM's (kept only when they hold a record: none otherwise), else its own.
/// Read for every VMI, so it builds nothing: no holder struct, no key beyond the lookup's.
const string_map& holder_annotations(const kind_state& st, const virtual_machine_instance& vmi) {
  static const string_map none;
  if (vmi.controller_vm.empty())
    return vmi.metadata.annotations;
  auto i = st.in.vm_annotations.find(vmi_key(vmi.metadata.namespace_, vmi.controller_vm));
  return i == st.in.vm_annotations.end() ? none : i->second;
}

/// Cool-off record per VMI key: the holder's annotation, or the latest schedopt VMIM.
/// A record this request wrote for a VM it has no VMIM for is ignored: the run was
/// interrupted between the record and the create, so the VM was never migrated.
std::map<std::string, timestamp> last_migrations(kind_state& st,
                                                 const std::set<std::string>& adopted) {
  std::map<std::string, std::vector<virtual_machine_instance_migration>> by_vmi;
  for (auto& m : st.in.vmims)
    by_vmi[vmi_key(m.metadata.namespace_, m.vmi_name)].push_back(m);
  std::map<std::string, timestamp> out;
  auto& annotation = st.ctx.config.vm_cool_off_annotation;
  for (auto& shared : st.in.vmis) {
    const auto& vmi = *shared;
    auto key = vmi_key(vmi.metadata.namespace_, vmi.metadata.name);
    const string_map& annotations = holder_annotations(st, vmi);
    auto vmims = by_vmi.find(key);
    // Neither a record nor a VMI migration: nothing to know (nearly every VMI). Skipped
    // before anything is built for it: this loop runs over every VMI of the cluster.
    if (annotations.count(annotation) == 0 && vmims == by_vmi.end())
      continue;
    std::optional<timestamp> record;
    if (!adopted.count(key) && cool_off_written_by(annotations, annotation, st.request.metadata.uid))
      continue;
    auto parsed = recorded_migration_time(annotations, annotation);
    if (parsed)
      record = *parsed;
    else
      log_kv(spdlog::level::warn, "ignoring cool-off record",
             {{"request", st.request.metadata.name}, {"namespace", vmi.metadata.namespace_},
              {"vmi", vmi.metadata.name}, {"error", parsed.err().message}});
    static const std::vector<virtual_machine_instance_migration> no_vmims;
    auto latest = latest_migration_time(record, vmims != by_vmi.end() ? vmims->second : no_vmims);
    if (latest)
      out[key] = *latest;
  }
  return out;
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

/// The holder's cool-off record as it is now, for the candidate to restore.
string_map cool_off_before(const kind_state& st, const virtual_machine_instance& vmi) {
  return cool_off_record_of(holder_annotations(st, vmi), st.ctx.config.vm_cool_off_annotation);
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
  auto& st = self->state;
  if (st.engine == engine_state::starting || (!st.evaluated && !st.stopped) || st.running > 0)
    return;
  reply(self);
}

/// No VMIM is created from now on (the request was deleted, or its run passed
/// maxRunDuration); waits only for a pending stage write and the candidates running.
void stop_creating(kind_pointer self) {
  auto& st = self->state;
  st.stopped = true;
  if (st.supervisor)
    self->send(st.supervisor, atom::stop_v);
  maybe_reply(self);
}

void spawn_candidates(kind_pointer self, std::vector<candidate_plan>& plans) {
  auto& st = self->state;
  st.running += plans.size();
  for (auto& plan : plans)
    spawn_candidate(self, st.ctx, self, st.supervisor, std::move(plan));
  plans.clear();
}

/// Writes the Migrating stage (before any VMIM exists, so a restart knows to adopt),
/// then starts the supervisor and the candidates queued meanwhile. Asked as the judging
/// starts, so the evaluation may still be running when it is written.
void start_engine(kind_pointer self) {
  auto& st = self->state;
  st.engine = engine_state::starting;
  stage_change change{st.request.metadata.uid, stage::migrating, run_status::in_progress,
                      st.request.metadata.generation};
  self->request(st.ctx.status, caf::infinite, change)
    .then(
      [=](bool written) {
        auto& st = self->state;
        if (!written || st.stopped)
          return reply(self);
        st.engine = engine_state::running;
        auto& spec = *st.request.spec.vm_hyperconvergence;
        auto& cfg = st.ctx.config;
        auto par = clamp_parallelism(spec.max_parallel_migrations, cfg.max_parallel_migrations,
                                     cfg.max_parallel_migrations_limit);
        if (par.clamped) { // said even when nothing is to migrate: the spec is still wrong
          log_kv(spdlog::level::warn, par.message, {{"request", st.request.metadata.name}});
          self->send(st.ctx.events, event_record{request_reference(st.request), "Warning",
                                                 "ParallelismClamped", par.message});
        }
        if (st.evaluated && st.queued.empty())
          return maybe_reply(self); // the evaluation found nothing to migrate
        log_kv(spdlog::level::info,
               "migration engine with " + std::to_string(par.effective) + " workers",
               {{"request", st.request.metadata.name}});
        bool explicit_parallelism = spec.max_parallel_migrations.has_value()
                                    || cfg.max_parallel_migrations_explicit;
        st.supervisor = spawn_supervisor( // linked, like every candidate
          self, {static_cast<std::size_t>(par.effective), explicit_parallelism,
                 cfg.pin_target_node, st.cool_off, st.ctx.events,
                 request_reference(st.request), st.ctx.kubevirt});
        spawn_candidates(self, st.queued);
        maybe_reply(self);
      },
      [=](caf::error& err) { fail_run(self, "status writer failed: " + error_message(err)); });
}

/// Gives plans to the engine (queued while its stage write is pending). Their detail
/// slots are reserved at once, before any skip is sent (skips are sent when the
/// evaluation ends).
void hand_off(kind_pointer self, std::vector<candidate_plan> plans) {
  auto& st = self->state;
  if (plans.empty())
    return;
  self->send(st.ctx.status, atom::reserve_v, st.request.metadata.uid,
             static_cast<int64_t>(plans.size()));
  std::move(plans.begin(), plans.end(), std::back_inserter(st.queued));
  if (st.engine == engine_state::running)
    spawn_candidates(self, st.queued);
}

/// Plans for the VMIMs of this request found at resume, adopted, never created twice.
std::vector<candidate_plan> adopted_plans(const kind_state& st) {
  std::vector<candidate_plan> plans;
  if (st.ours.empty())
    return plans;
  std::map<std::string, const virtual_machine_instance*> vmi_by_key;
  for (auto& v : st.in.vmis)
    if (auto key = vmi_key(v->metadata.namespace_, v->metadata.name); st.ours.count(key))
      vmi_by_key.emplace(std::move(key), v.get());
  for (auto& [key, m] : st.ours) {
    if (st.ledger.accounted(key))
      continue; // its result is recorded
    auto i = vmi_by_key.find(key);
    candidate_plan plan{st.request.metadata.name, st.request.metadata.uid, {}, {}, m, {}, {}};
    if (i != vmi_by_key.end()) {
      plan.vmi = *i->second;
      plan.cool_off_before = cool_off_before(st, plan.vmi);
    } else {
      plan.vmi.metadata.namespace_ = m.metadata.namespace_;
      plan.vmi.metadata.name = m.vmi_name;
    }
    plans.push_back(std::move(plan));
  }
  return plans;
}

/// Plans for the candidates judged eligible since the last call, in (namespace, name) order
/// (docs/design.md §2.7).
std::vector<candidate_plan> new_eligible_plans(kind_state& st) {
  std::vector<candidate_plan> plans;
  auto& eligible = st.eval->result().eligible;
  for (; st.handed < eligible.size(); ++st.handed) {
    auto& vmi = st.eval->eligible_vmi(st.handed);
    plans.push_back(candidate_plan{st.request.metadata.name, st.request.metadata.uid, vmi,
                                   eligible[st.handed].target_nodes, std::nullopt,
                                   cool_off_before(st, vmi),
                                   eligible[st.handed].replica_holders});
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
  for (auto& m : st.in.vmims)
    if (m.metadata.labels.count(labels::request_uid)
        && m.metadata.labels.at(labels::request_uid) == uid) {
      auto key = vmi_key(m.metadata.namespace_, m.vmi_name);
      st.ours[key] = m;
      st.ours_keys.insert(key);
    }
  // What the recorded status already accounts for (empty on a fresh run). VMs it names
  // and VMs with a VMIM of ours are not evaluated again: each is accounted for once.
  st.ledger = resume_ledger{st.resume ? st.request.status.vm_hyperconvergence : std::nullopt};
  // A VMI read before its migration's end reached the informer is judged where it runs.
  if (auto settled = settle_finished_migrations(st.in.vmis, st.in.vmims))
    log_kv(spdlog::level::debug, "VMIs settled on their succeeded migrations' targets",
           {{"request", st.request.metadata.name}, {"vmis", std::to_string(settled)}});
  auto prepared = phase_times::clock::now();
  st.eval_in = std::make_unique<evaluation_input>();
  auto& in = *st.eval_in;
  in.usage = usage_by_node(st.in.vmis, st.in.vmims); // every VMI, evaluated or not
  in.in_flight = in_flight_migrations_by_vmi(st.in.vmims);
  in.last_migration = last_migrations(st, st.ours_keys);
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
  in.every_vmi = st.ctx.explain || !st.ctx.plan_output.empty() || cfg.dry_run;
  st.times.prepare_ms = phase_times::since(prepared);
}

/// Prints an explanation or a plan, or logs a dry run's: runs that create nothing.
void report_without_migrating(kind_pointer self, const explanation_sources& sources) {
  auto& st = self->state;
  const auto& result = sources.result;
  if (st.ctx.explain) {
    auto text = render_explain(*st.ctx.explain, explainer{sources});
    if (!text) { // the operator's mistake, not a failed run: one line, no log
      st.result.run_failure = text.err().message;
      return reply(self);
    }
    std::fputs(text->c_str(), stdout);
    std::fflush(stdout);
    return reply(self);
  }
  if (!st.ctx.plan_output.empty()) {
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
  st.evaluated = true;
  auto result = st.eval->take_result();
  auto& in = *st.eval_in;
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
  if (st.ctx.explain || !st.ctx.plan_output.empty())
    return report_without_migrating(self, sources);
  if (st.ctx.config.dry_run) // what a run would reserve: its candidates' detail slots
    self->send(st.ctx.status, atom::reserve_v, st.request.metadata.uid,
               static_cast<int64_t>(adopted_plans(st).size() + result.eligible.size()));
  // Skips not yet counted (all of them on a fresh run); engine results keep their
  // detail slots, reserved as their plans were handed on.
  auto skips = st.ledger.new_skips(explained_skips(sources));
  for (auto& d : skips)
    self->send(st.ctx.status, vm_result{st.request.metadata.uid, d});
  st.result.skipped += static_cast<int64_t>(skips.size());
  st.result.outstanding.insert(st.result.outstanding.begin(), result.outstanding.begin(),
                               result.outstanding.end());
  st.eval.reset();
  st.eval_in.reset();
  if (st.ctx.config.dry_run)
    return report_without_migrating(self, sources);
  maybe_reply(self);
}

/// Judges the next batch of VMIs and hands its eligible candidates on; the batches are
/// separate messages so stage writes, candidate results and a stop are served between.
void judge_batch(kind_pointer self) {
  auto& st = self->state;
  if (st.stopped)
    return maybe_reply(self);
  bool every_vmi = st.eval_in->every_vmi;
  bool more = st.eval->advance(every_vmi ? std::numeric_limits<std::size_t>::max()
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
  auto& in = *st.eval_in;
  in.mapper = std::move(st.in.mapper);
  in.volumes = std::move(st.in.volumes);
  in.replicas = std::move(st.in.replicas);
  in.now = actor_now(self);
  // A run that may migrate writes Migrating whatever it finds (with no candidate it goes
  // on to Final): written now, the write's round trip is over by the first candidate.
  if (!in.every_vmi)
    start_engine(self);
  st.eval = std::make_unique<evaluator>(in);
  if (!in.every_vmi)
    hand_off(self, adopted_plans(st)); // adopted VMIMs first, as they were created
  judge_batch(self);
}

/// The VirtualMachine list and the driver lookup run at once; what needs the VMs'
/// records is prepared when they are read, and the later one starts the judging.
void input_step_done(kind_pointer self) {
  auto& st = self->state;
  if (st.replied)
    return;
  if (st.in.vms_read && !st.eval_in)
    prepare_evaluation(self);
  if (st.in.vms_read && st.in.replicas_read && !st.eval)
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
        in.replicas_read = true;
        self->state.times.driver_ms = phase_times::since(asked);
        input_step_done(self);
      },
      [=](caf::error& err) {
        auto why = error_message(err);
        if (why.rfind("driver failure", 0) != 0)
          why = "driver failure: " + why;
        fail_run(self, why);
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
          [=](caf::error& err) { fail_run(self, "informer snapshot failed: " + error_message(err)); });
}

void opt_outs_read(kind_pointer self) {
  auto& st = self->state;
  st.in.vms_read = true;
  st.times.vms_ms = phase_times::since(st.times.started) - st.times.snapshots_ms;
  input_step_done(self);
}

// Namespaces labelled to be left alone, read once per run by label selector: a handful
// of names, where a namespace informer would hold every namespace of the cluster. An
// unreadable answer fails the run: migrating in a namespace that opted out is the one
// mistake this read exists to prevent.
void vms_done(kind_pointer self) {
  k8s::list_request req;
  req.res = k8s::resources::namespaces;
  req.label_selector = std::string{opt_out_label} + "=true";
  self->request(self->state.ctx.api, caf::infinite, req)
    .then(
      [=](const k8s::list_response& resp) {
        for (auto& page : resp.pages) {
          auto list = decode_list<kube_namespace>(page);
          if (!list)
            return fail_run(self, "cannot read Namespaces: " + list.err().message);
          for (auto& ns : list->items)
            if (ns.opted_out) // the selector already says so; a server ignoring it must not widen the skip
              self->state.in.opted_out_namespaces.insert(ns.metadata.name);
          if (!list->skipped.empty())
            return fail_run(self, "cannot read Namespace " + list->skipped.front().name + ": " +
                                    list->skipped.front().why.message);
        }
        opt_outs_read(self);
      },
      [=](caf::error& err) {
        fail_run(self, "cannot list Namespaces labelled " + std::string{opt_out_label} +
                         "=true: " + error_message(err));
      });
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
            return fail_run(self, "cannot read VirtualMachines: " + list.err().message);
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
          return fail_run(self, "cannot list VirtualMachines: " + error_message(err));
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

optimization_kind_actor::behavior_type vm_hyperconvergence(kind_pointer self,
                                                           controller_context ctx) {
  self->state.ctx = std::move(ctx);
  return {
    [=](kind_run& run) -> caf::result<kind_result> {
      auto& st = self->state;
      st.request = std::move(run.request);
      st.resume = run.resume;
      st.promise = self->make_response_promise<kind_result>();
      st.times = phase_times{};
      if (auto& vs = st.request.status.vm_hyperconvergence; vs && st.resume) {
        st.result.successful = vs->successful;
        st.result.failed = vs->failed;
        st.result.skipped = vs->skipped;
      }
      auto& spec = *st.request.spec.vm_hyperconvergence;
      auto& cfg = st.ctx.config;
      auto cool_off = choose_cool_off(spec.cool_off_period, cfg.cool_off_period,
                                      cfg.min_cool_off_period);
      if (!cool_off.error.empty()) {
        fail_run(self, cool_off.error);
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
      if (done.status == vm_status::successful)
        ++st.result.successful;
      else if (done.status == vm_status::failed) {
        ++st.result.failed;
        st.failed_vms.push_back(vmi_key(done.vmi_namespace, done.vmi_name));
      } else if (done.status == vm_status::skipped) {
        ++st.result.skipped; // its targets closed between evaluation and admission
      } else {
        // Stopped before admission: it goes back to the outstanding list.
        st.result.outstanding.push_back(vmi_key(done.vmi_namespace, done.vmi_name));
      }
      --st.running;
      maybe_reply(self);
    },
    [=](atom::tick) { judge_batch(self); },
    [=](atom::timeout) {
      auto& st = self->state;
      if (st.replied || st.stopped || (st.evaluated && st.running == 0 && st.queued.empty()))
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

optimization_kind_actor spawn_vm_hyperconvergence(caf::local_actor* parent,
                                                  const controller_context& ctx) {
  return parent->spawn<caf::linked>(vm_hyperconvergence, ctx);
}

} // namespace schedopt
