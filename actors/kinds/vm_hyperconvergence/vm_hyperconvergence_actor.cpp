// vmHyperconvergence kind actor, one behaviour per phase: idle until the request hands it
// its run, then running (its inputs are gathered in vm_gathering, judged in vm_judging)
// with its migration engine: the supervisor and one candidate actor per eligible VM.
#include "actors/kinds/vm_hyperconvergence/vm_hyperconvergence_actor.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/clock.hpp"
#include "actors/kinds/vm_hyperconvergence/candidate_actor.hpp"
#include "actors/kinds/vm_hyperconvergence/supervisor_actor.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_run_state.hpp"
#include "model/placement/parallelism.hpp"

namespace schedopt {

namespace vm_run {

void reply(run_pointer self) {
  self->state.progress.reply();
  finish_run(self);
}

void maybe_reply(run_pointer self) {
  if (self->state.progress.may_reply())
    reply(self);
}

namespace {

/// How often a run looks at its maxRunDuration deadline. A pending check keeps the kind's
/// actor alive after its run ended (CAF's delayed message holds its receiver and cannot be
/// cancelled), so this bounds how long each ended run's memory outlives it; one wakeup a
/// second during a run costs nothing measurable.
constexpr duration run_deadline_check_interval = std::chrono::seconds(1);

/// What the command running this kind asks of it: `schedopt explain`, `plan`, a dry run
/// or a run that migrates.
run_mode mode_of(const controller_context& ctx) {
  if (ctx.explain)
    return run_mode::explain;
  if (!ctx.plan_output.empty())
    return run_mode::plan;
  return ctx.config.dry_run ? run_mode::dry_run : run_mode::migrate;
}

/// Looks at the run's deadline again in a while: a timer of the whole maxRunDuration
/// would hold the kind's memory for hours after its run ended.
void check_run_deadline(run_pointer self) {
  auto left = std::chrono::duration_cast<duration>(self->state.run_deadline - actor_now(self));
  auto wait = std::min<duration>(std::max<duration>(left, duration{0}), run_deadline_check_interval);
  self->delayed_send(self, to_clock(wait), atom::timeout_v);
}

void spawn_candidates(run_pointer self, std::vector<candidate_plan>& plans) {
  auto& st = self->state;
  st.progress.candidates_spawned(plans.size());
  for (auto& plan : plans)
    spawn_candidate(self, st.ctx, self, st.supervisor, std::move(plan));
  plans.clear();
}

/// The Migrating stage is written: the supervisor starts, with the parallelism the spec
/// and the settings allow, and so do the candidates queued meanwhile.
void engine_written(run_pointer self) {
  auto& st = self->state;
  auto& spec = st.spec;
  auto& cfg = st.ctx.config;
  auto par = clamp_parallelism(spec.max_parallel_migrations, cfg.max_parallel_migrations,
                               cfg.max_parallel_migrations_limit);
  if (par.clamped) // said even when nothing is to migrate: the spec is still wrong
    warn_clamped(self, "ParallelismClamped", par.message);
  if (st.progress.current() == run_progress::phase::evaluated && st.queued.empty())
    return maybe_reply(self); // the evaluation found nothing to migrate
  log_kv(spdlog::level::info, "migration engine with " + std::to_string(par.effective) + " workers",
         {{"request", st.request.metadata.name}});
  bool explicit_parallelism =
    spec.max_parallel_migrations.has_value() || cfg.max_parallel_migrations_explicit;
  st.supervisor = spawn_supervisor( // linked, like every candidate
    self, {static_cast<std::size_t>(par.effective), explicit_parallelism, cfg.pin_target_node,
           yield_mode_of(cfg.yield_to_kubevirt), st.cool_off, st.ctx.events,
           request_reference(st.request), st.ctx.kubevirt});
  spawn_candidates(self, st.queued);
  maybe_reply(self);
}

void count_candidate(run_state& st, const candidate_done& done) {
  auto key = vmi_key(done.vmi_namespace, done.vmi_name);
  if (done.status == detail_status::successful) {
    ++st.result.successful;
  } else if (done.status == detail_status::failed) {
    ++st.result.failed;
    st.failed.push_back(key);
  } else if (done.status == detail_status::skipped) {
    ++st.result.skipped; // its targets closed between evaluation and admission
  } else {
    st.result.outstanding.push_back(key); // stopped before admission
  }
  st.progress.candidate_done();
}

void deadline_checked(run_pointer self) {
  auto& st = self->state;
  if (!st.progress.deadline_matters(st.queued.empty()))
    return;
  if (actor_now(self) < st.run_deadline)
    return check_run_deadline(self);
  say_deadline_reached(self, "no new migrations; in-flight ones finish");
  stop_creating(self);
}

/// The run's spec, read: false when it failed the run.
bool read_spec(run_pointer self, const kind_spec& fragment) {
  auto& st = self->state;
  auto decoded = decode_vm_hyperconvergence_spec(fragment);
  if (!decoded) {
    fail_run(self, run_failure_kind::invalid_spec, "invalid " + decoded.err().message);
    return false;
  }
  st.spec = std::move(*decoded);
  auto& cfg = st.ctx.config;
  auto cool_off = choose_cool_off(st.spec.cool_off_period, cfg.cool_off_period,
                                  cfg.min_cool_off_period, st.kind_field);
  if (!cool_off.error.empty()) {
    fail_run(self, run_failure_kind::invalid_spec, cool_off.error);
    return false;
  }
  st.cool_off = cool_off.effective;
  warn_clamped(self, "CoolOffClamped", cool_off.clamped);
  return true;
}

vm_hyperconvergence_actor::behavior_type running(run_pointer self) {
  return {
    [=](kind_run&) -> caf::result<kind_result> {
      return to_caf_error(ec::invalid_value, "vmHyperconvergence is running already");
    },
    [=](const candidate_done& done) {
      count_candidate(self->state, done);
      maybe_reply(self);
    },
    [=](atom::tick) { judge_batch(self); },
    [=](atom::timeout) { deadline_checked(self); },
    [=](atom::stop) { stop_creating(self); },
  };
}

vm_hyperconvergence_actor::behavior_type idle(run_pointer self, controller_context ctx) {
  self->state.ctx = std::move(ctx);
  return {
    [=](kind_run& run) -> caf::result<kind_result> {
      auto& st = self->state;
      st.promise = self->make_response_promise<kind_result>();
      st.progress = run_progress{mode_of(st.ctx)};
      st.times = phase_times{};
      take_run(st, run, actor_now(self));
      self->become(running(self));
      if (!read_spec(self, run.spec))
        return st.promise;
      check_run_deadline(self);
      gather(self);
      return st.promise;
    },
    [=](const candidate_done&) {},
    [=](atom::tick) {},
    [=](atom::timeout) {},
    [=](atom::stop) { self->quit(); },
  };
}

} // namespace

/// Writes the Migrating stage (before any VMIM exists, so a restart knows to adopt),
/// then starts the supervisor and the candidates queued meanwhile. Asked as the judging
/// starts, so the evaluation may still be running when it is written.
void start_engine(run_pointer self) {
  auto& st = self->state;
  if (!st.progress.request_engine())
    return;
  stage_change change{st.request.metadata.uid, request_stage::migrating,
                      request_status::in_progress, st.request.metadata.generation};
  self->request(st.ctx.status, caf::infinite, change)
    .then(
      [=](bool written) {
        if (!self->state.progress.engine_answered(written))
          return reply(self);
        engine_written(self);
      },
      [=](caf::error& err) {
        fail_run(self, run_failure_kind::internal, "status writer failed: " + error_message(err));
      });
}

// The request was deleted, its run passed maxRunDuration, or the driver failed after
// judging began on its lead answer.
void stop_creating(run_pointer self) {
  auto& st = self->state;
  // Handed on but not yet started: outstanding, like those the supervisor turns away.
  for (auto& plan : st.queued)
    st.result.outstanding.push_back(vmi_key(plan.vmi.metadata.namespace_, plan.vmi.metadata.name));
  st.queued.clear();
  st.progress.stop();
  if (st.supervisor)
    self->send(st.supervisor, atom::stop_v);
  maybe_reply(self);
}

/// Their detail slots are reserved at once, before any skip is sent (skips are sent when
/// the evaluation ends).
void hand_off(run_pointer self, std::vector<candidate_plan> plans) {
  auto& st = self->state;
  if (plans.empty())
    return;
  self->send(st.ctx.status, atom::reserve_v, st.request.metadata.uid, st.kind_field,
             static_cast<int64_t>(plans.size()));
  std::move(plans.begin(), plans.end(), std::back_inserter(st.queued));
  if (st.progress.spawns_at_once())
    spawn_candidates(self, st.queued);
}

} // namespace vm_run

void add_vm_hyperconvergence_types(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::schedopt_vm_hyperconvergence>();
}

vm_hyperconvergence_actor spawn_vm_hyperconvergence(caf::local_actor* parent,
                                                    const controller_context& ctx) {
  return parent->spawn<caf::linked>(vm_run::idle, ctx);
}

} // namespace schedopt
