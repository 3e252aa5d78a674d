// podHyperconvergence kind actor, one behaviour per phase: idle until the request hands
// it its run, gathering (pod_gathering, then pod_evaluating) and evicting (pod_evicting)
// until every candidate has an outcome.
#include "actors/kinds/pod_hyperconvergence/pod_hyperconvergence_actor.hpp"

#include <chrono>
#include <utility>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/clock.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_informers.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_run_state.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_settings.hpp"
#include "k8s/metrics.hpp"
#include "model/decode.hpp"

namespace schedopt {

namespace pod_run {

namespace {

void describe_metrics() {
  auto& m = k8s::default_metrics();
  m.describe_once("schedopt_evictions_total", [](k8s::metrics_registry& r) {
    r.describe_counter("schedopt_evictions_total",
                       "Pod evictions sent by podHyperconvergence, by how the API answered "
                       "(evicted, gone, blocked, transient, failed).");
    r.describe_counter("schedopt_pod_outcomes_total",
                       "Evicted pods by outcome (successful, failed, skipped).");
    r.describe_gauge("schedopt_pods", "Running pods with driver volumes at the last "
                                      "podHyperconvergence evaluation, by placement.");
  });
}

caf::error already_running() {
  return to_caf_error(ec::invalid_value, "podHyperconvergence is running already");
}

/// The run's settings from its spec and the cluster's: false when they failed the run.
bool read_spec(run_pointer self, const kind_spec& fragment) {
  auto& st = self->state;
  auto spec = decode_spec(fragment.json);
  if (!spec) {
    fail_run(self, run_failure_kind::invalid_spec, "invalid " + spec.err().message);
    return false;
  }
  auto& cfg = st.ctx.config;
  cluster_defaults defaults;
  defaults.cool_off_period = cfg.cool_off_period;
  defaults.min_cool_off_period = cfg.min_cool_off_period;
  auto own = pod_settings_of(cfg);
  defaults.max_parallel_evictions = own.max_parallel_evictions;
  defaults.max_parallel_evictions_limit = own.max_parallel_evictions_limit;
  st.run = choose_run_settings(*spec, defaults);
  if (!st.run.error.empty()) {
    fail_run(self, run_failure_kind::invalid_spec, st.run.error);
    return false;
  }
  warn_clamped(self, "CoolOffClamped", st.run.cool_off_clamped);
  warn_clamped(self, "ParallelismClamped", st.run.parallelism_clamped);
  return true;
}

pod_hyperconvergence_actor::behavior_type gathering(run_pointer self) {
  return {
    [=](kind_run&) -> caf::result<kind_result> { return already_running(); },
    [=](atom::tick) { wait_for_informers(self); },
    [=](atom::stop) {
      // Nothing written yet: the run ends here, with what the status already counts.
      finish_run(self);
    },
  };
}

pod_hyperconvergence_actor::behavior_type idle(run_pointer self, controller_context ctx) {
  self->state.ctx = std::move(ctx);
  describe_metrics();
  return {
    [=](kind_run& run) -> caf::result<kind_result> {
      auto& st = self->state;
      st.promise = self->make_response_promise<kind_result>();
      auto now = actor_now(self);
      take_run(st, run, now);
      self->become(gathering(self));
      if (!read_spec(self, run.spec))
        return st.promise;
      auto informers = pod_informers_of(st.ctx);
      if (!informers) {
        fail_run(self, run_failure_kind::internal, informers.err().message);
        return st.promise;
      }
      st.informers = *informers;
      st.sync_deadline = now + std::chrono::duration_cast<timestamp::duration>(informer_sync_timeout);
      wait_for_informers(self);
      return st.promise;
    },
    [=](atom::tick) {},
    [=](atom::stop) { self->quit(); },
  };
}

} // namespace

pod_hyperconvergence_actor::behavior_type evicting(run_pointer self) {
  return {
    [=](kind_run&) -> caf::result<kind_result> { return already_running(); },
    [=](atom::tick) { tick(self); },
    [=](atom::stop) {
      log_kv(spdlog::level::info, "request deleted: no new evictions; awaited ones finish",
             {{"request", self->state.request.metadata.name}});
      self->state.engine->stop();
      step(self);
    },
  };
}

} // namespace pod_run

void add_pod_hyperconvergence_types(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::schedopt_pod_hyperconvergence>();
}

pod_hyperconvergence_actor spawn_pod_hyperconvergence(caf::local_actor* parent,
                                                      const controller_context& ctx) {
  return parent->spawn<caf::linked>(pod_run::idle, ctx);
}

} // namespace schedopt
