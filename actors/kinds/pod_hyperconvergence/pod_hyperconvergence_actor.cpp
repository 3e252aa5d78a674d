// podHyperconvergence kind actor. Evaluation is model/kinds/pod_hyperconvergence/
// pod_evaluation, the eviction run eviction_engine, resume plan_resume; this actor
// gathers their inputs (informer snapshots, opted-out namespaces, the storage driver's
// replica nodes, asked exactly as the VM kind asks it) and does their I/O.
#include "actors/kinds/pod_hyperconvergence/pod_hyperconvergence_actor.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_informers.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_settings.hpp"
#include "actors/logging.hpp"
#include "actors/opted_out_namespaces.hpp"
#include "actors/system_config.hpp"
#include "k8s/backoff.hpp"
#include "k8s/metrics.hpp"
#include "model/decode.hpp"
#include "model/kinds/pod_hyperconvergence/eviction_engine.hpp"
#include "model/kinds/pod_hyperconvergence/pod_explanation_report.hpp"
#include "model/kinds/pod_hyperconvergence/pod_plan_report.hpp"
#include "model/kinds/pod_hyperconvergence/pod_resume.hpp"
#include "model/kinds/pod_hyperconvergence/pod_spec.hpp"
#include "model/outcome.hpp"
#include "model/placement/run_floors.hpp"
#include "model/name_list.hpp"

namespace schedopt {

namespace {

using namespace pod_hyperconvergence;

/// How long a run waits for the kind's informers (started on demand by its first run)
/// to list; past it the run fails, naming them: their list is refused (RBAC) or the
/// API server cannot serve it.
constexpr duration informer_sync_timeout = std::chrono::seconds(60);
constexpr duration informer_sync_poll = std::chrono::milliseconds(200);
/// How often replacements are looked for in the pod informer's store while any is awaited.
constexpr duration replacement_check_interval = std::chrono::seconds(1);

/// Everything the evaluation reads.
struct inputs {
  shared_list<pod> pods;
  shared_list<stateful_set> stateful_sets;
  shared_list<replica_set> replica_sets;
  shared_list<pod_disruption_budget> budgets;
  shared_list<persistent_volume_claim> pvcs;
  shared_list<persistent_volume> pvs;
  std::vector<node> nodes;
  shared_list<virtual_machine_instance> vmis;
  std::vector<virtual_machine_instance_migration> vmims;
  std::set<std::string> opted_out_namespaces;
  std::vector<pod_volumes> volumes;
  replicas_by_pv replicas;
  std::map<std::string, std::string> replica_errors;
};

struct pod_kind_state {
  static inline const char* name = "pod-hyperconvergence";
  controller_context ctx;
  /// The kind's own informers, read from ctx when a run starts (pod_informers_of).
  pod_informers informers;
  scheduling_optimization request;
  bool resume = false;
  run_settings run;
  caf::typed_response_promise<kind_result> promise;
  bool replied = false;
  bool stopped = false;
  kind_result result;
  timestamp run_deadline{};
  timestamp sync_deadline{};
  inputs in;
  resume_plan resumed;
  /// Owners' annotations as the run read them, by describe(workload).
  std::map<std::string, string_map> owner_annotations;
  std::unique_ptr<eviction_engine> engine;
  std::optional<timestamp> tick_due; // the earliest tick already on its way
  std::vector<std::string> failed_pods;
};

using kind_pointer = pod_hyperconvergence_actor::stateful_pointer<pod_kind_state>;

const std::string& request_name(kind_pointer self) { return self->state.request.metadata.name; }

object_reference pod_reference(const std::string& ns, const std::string& name,
                               const std::string& uid) {
  object_reference ref;
  ref.api_version = "v1";
  ref.kind = "Pod";
  ref.namespace_ = ns;
  ref.name = name;
  ref.uid = uid;
  return ref;
}

kind_detail to_kind_detail(const pod_detail& d) {
  kind_detail out;
  out.name = d.name;
  out.namespace_ = d.namespace_;
  out.status = d.status == pod_result::successful ? detail_status::successful
               : d.status == pod_result::skipped  ? detail_status::skipped
                                                  : detail_status::failed;
  out.reason = d.reason;
  return out;
}

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

void reply(kind_pointer self) {
  auto& st = self->state;
  if (st.replied)
    return;
  st.replied = true;
  if (!st.failed_pods.empty()) {
    self->send(st.ctx.events,
               event_record{request_reference(st.request), "Warning", "EvictionFailed",
                            std::to_string(st.failed_pods.size()) + " pod evictions failed: "
                              + first_names(st.failed_pods, 10)});
  }
  st.promise.deliver(st.result);
  self->quit();
}

void fail_run(kind_pointer self, run_failure_kind kind, std::string why) {
  if (self->state.replied)
    return;
  log_kv(spdlog::level::err, "podHyperconvergence run failed",
         {{"request", request_name(self)}, {"error", why}});
  self->state.result.run_failure = run_failure{kind, std::move(why)};
  reply(self);
}

/// Counts an outcome and sends it to the status block (the writer keeps its detail).
void record_outcome(kind_pointer self, const pod_detail& d) {
  auto& st = self->state;
  switch (d.status) {
    case pod_result::successful: ++st.result.successful; break;
    case pod_result::skipped: ++st.result.skipped; break;
    case pod_result::failed:
      ++st.result.failed;
      st.failed_pods.push_back(pod_key(d.namespace_, d.name));
      break;
  }
  self->send(st.ctx.status, detail_result{st.request.metadata.uid, kind_field, to_kind_detail(d)});
}

// -- evicting ---------------------------------------------------------------------

void step(kind_pointer self);

/// Makes sure a tick arrives by `when` (one already due earlier does).
void wake_at(kind_pointer self, timestamp when) {
  auto& st = self->state;
  auto now = actor_now(self);
  if (st.tick_due && *st.tick_due <= when && *st.tick_due >= now)
    return;
  st.tick_due = when;
  auto wait = std::max<timestamp::duration>(when - now, timestamp::duration{0});
  self->delayed_send(self, to_clock(std::chrono::duration_cast<duration>(wait)), atom::tick_v);
}

const k8s::resource& holder_resource(const cool_off_holder& h) {
  return h.resource == "statefulsets" ? k8s::resources::stateful_sets
                                      : k8s::resources::replica_sets;
}

void send_owner_write(kind_pointer self, owner_write w) {
  auto& st = self->state;
  k8s::patch_request req{holder_resource(w.holder), w.holder.namespace_, w.holder.name,
                         std::move(w.patch)};
  auto workload = w.workload;
  self->request(st.ctx.api, caf::infinite, std::move(req))
    .then(
      [=](const k8s::api_response&) {
        self->state.engine->owner_written(workload, "", actor_now(self));
        step(self);
      },
      [=](caf::error& err) {
        auto why = error_message(err);
        log_kv(spdlog::level::warn, "eviction record not written",
               {{"request", request_name(self)}, {"workload", workload}, {"error", why}});
        self->state.engine->owner_written(workload, why, actor_now(self));
        step(self);
      });
}

void send_eviction(kind_pointer self, const eviction_call& call) {
  auto& st = self->state;
  k8s::eviction_request req{call.namespace_, call.name,
                            eviction_body(call.namespace_, call.name, call.uid).dump()};
  auto key = call.key;
  auto answered = [=](const eviction_decision& d) {
    k8s::default_metrics().counter_add("schedopt_evictions_total",
                                       {{"result", to_string(d.verdict)}});
    if (d.verdict != eviction_verdict::evicted && d.verdict != eviction_verdict::gone)
      log_kv(d.verdict == eviction_verdict::failed ? spdlog::level::warn : spdlog::level::info,
             std::string("eviction ") + to_string(d.verdict),
             {{"request", request_name(self)}, {"pod", key}, {"detail", d.message}});
    self->state.engine->eviction_answered(key, d, actor_now(self));
    step(self);
  };
  self->request(st.ctx.api, caf::infinite, std::move(req))
    .then(
      [=](const k8s::eviction_response& r) {
        auto hint = k8s::parse_retry_after(r.retry_after);
        answered(decide_eviction(
          r.http_status, r.body,
          std::chrono::duration_cast<std::chrono::seconds>(std::max(hint, decltype(hint){0}))));
      },
      [=](caf::error& err) {
        // Not sent at all (the client's queue full, leadership lapsed): no answer, as a
        // lost connection; the engine retries it in the window like one.
        eviction_decision d;
        d.verdict = eviction_verdict::transient;
        d.message = error_message(err);
        answered(d);
      });
}

void observe_replacements(kind_pointer self) {
  self->request(self->state.informers.pods, caf::infinite, atom::snapshot_v)
    .then(
      [=](const shared_list<pod>& pods) {
        auto& st = self->state;
        if (!st.engine)
          return;
        st.engine->observe(pods, actor_now(self));
        step(self);
      },
      [=](caf::error& err) {
        log_kv(spdlog::level::warn, "pod snapshot failed; replacements looked for again later",
               {{"request", request_name(self)}, {"error", error_message(err)}});
      });
}

/// Does what the engine asks for now, hands its outcomes on, and replies once it is done.
void step(kind_pointer self) {
  auto& st = self->state;
  auto& engine = *st.engine;
  auto now = actor_now(self);
  engine.advance(now);
  for (auto& w : engine.take_owner_writes(now))
    send_owner_write(self, std::move(w));
  for (auto& call : engine.take_evictions())
    send_eviction(self, call);
  for (auto& a : engine.take_accepted()) {
    auto slash = a.key.find('/');
    std::string nodes;
    for (auto& n : a.best_nodes)
      nodes += (nodes.empty() ? "" : ", ") + n;
    log_kv(spdlog::level::info, "pod evicted",
           {{"request", request_name(self)}, {"pod", a.key}, {"owner", describe(a.owner)},
            {"answer", to_string(a.verdict)}});
    self->send(st.ctx.events,
               event_record{pod_reference(a.key.substr(0, slash), a.key.substr(slash + 1), ""),
                            "Normal", "Evicted",
                            "evicted by schedopt request " + request_name(self)
                              + " so that " + describe(a.owner)
                              + " re-creates it on a node holding its volumes' replicas ("
                              + nodes + ")"});
  }
  for (auto& d : engine.take_outcomes()) {
    k8s::default_metrics().counter_add("schedopt_pod_outcomes_total",
                                       {{"result", d.status == pod_result::successful ? "successful"
                                                   : d.status == pod_result::skipped  ? "skipped"
                                                                                      : "failed"}});
    record_outcome(self, d);
  }
  if (engine.finished()) {
    auto& out = engine.outstanding();
    st.result.outstanding.insert(st.result.outstanding.end(), out.begin(), out.end());
    if (!out.empty() && !st.stopped && now >= st.run_deadline) {
      // The run's time was up before these were tried: left for a later request.
      auto why = run_deadline_reason(st.ctx.config.max_run_duration);
      st.result.stopped_by = why;
      log_kv(spdlog::level::warn, why + ": no new evictions", {{"request", request_name(self)}});
      self->send(st.ctx.events, event_record{request_reference(st.request), "Warning",
                                             "RunDeadlineReached",
                                             why + ": the rest is left for a later request"});
    }
    return reply(self);
  }
  auto next = engine.next_wakeup();
  if (engine.awaiting() > 0) {
    auto check = now + std::chrono::duration_cast<timestamp::duration>(replacement_check_interval);
    next = next ? std::min(*next, check) : check;
  }
  if (next)
    wake_at(self, std::min(*next, st.run_deadline));
}

pod_hyperconvergence_actor::behavior_type evicting(kind_pointer self) {
  return {
    [=](kind_run&) -> caf::result<kind_result> {
      return to_caf_error(ec::invalid_value, "podHyperconvergence is running already");
    },
    [=](atom::tick) {
      auto& st = self->state;
      if (st.tick_due && *st.tick_due <= actor_now(self))
        st.tick_due.reset();
      if (st.engine->awaiting() > 0)
        return observe_replacements(self);
      step(self);
    },
    [=](atom::stop) {
      auto& st = self->state;
      log_kv(spdlog::level::info, "request deleted: no new evictions; awaited ones finish",
             {{"request", request_name(self)}});
      st.stopped = true;
      st.engine->stop();
      step(self);
    },
  };
}

/// Writes the Migrating stage before the first write of the run (so a restart knows to
/// resume it), then starts the engine.
void start_engine(kind_pointer self, std::vector<eviction_candidate> eligible) {
  auto& st = self->state;
  stage_change change{st.request.metadata.uid, request_stage::migrating,
                      request_status::in_progress, st.request.metadata.generation};
  self->request(st.ctx.status, caf::infinite, change)
    .then(
      [=](bool written) {
        auto& st = self->state;
        if (!written || st.stopped)
          return reply(self);
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
               {{"request", request_name(self)},
                {"candidates", std::to_string(eligible.size())},
                {"adopted", std::to_string(st.resumed.in_flight.size())}});
        self->become(evicting(self));
        step(self);
      },
      [=](caf::error& err) {
        fail_run(self, run_failure_kind::internal, "status writer failed: " + error_message(err));
      });
}

// -- gathering ----------------------------------------------------------------------

void publish_counts(const pod_hyperconvergence::evaluation_counts& c) {
  auto& m = k8s::default_metrics();
  m.gauge_set("schedopt_pods", {{"state", "hyperconverged"}}, double(c.hyperconverged));
  m.gauge_set("schedopt_pods", {{"state", "semi"}}, double(c.semi));
  m.gauge_set("schedopt_pods", {{"state", "non"}}, double(c.non));
  m.gauge_set("schedopt_pods", {{"state", "no_driver_volume"}}, double(c.no_driver_volumes));
}

/// `schedopt explain --kind podHyperconvergence`: the explanation of the evaluation just
/// made, on stdout; nothing is evicted or written.
void print_explanation(kind_pointer self, const pod_hyperconvergence::evaluation_input& in,
                       const pod_hyperconvergence::evaluation_result& result) {
  auto& st = self->state;
  sorted_objects<persistent_volume_claim> pvcs{st.in.pvcs};
  sorted_objects<persistent_volume> pvs{st.in.pvs};
  auto budgets = budgets_by_pod(st.in.pods, values_of(st.in.budgets));
  pod_explanation_sources sources{in, result, &pvcs, &pvs, &budgets};
  auto text = render_pod_explain(st.ctx.explain->output, st.ctx.explain->key, pod_explainer{sources});
  if (!text) { // the operator's mistake (the query is this run's spec): one line, no log
    st.result.run_failure = run_failure{run_failure_kind::invalid_spec, text.err().message};
    return reply(self);
  }
  std::fputs(text->c_str(), stdout);
  std::fflush(stdout);
  reply(self);
}

void evaluate_and_run(kind_pointer self) {
  auto& st = self->state;
  auto& cfg = st.ctx.config;
  auto& uid = st.request.metadata.uid;
  if (st.resume) {
    pod_hyperconvergence_status recorded;
    if (const auto* block = block_of(st.request.status, kind_field))
      for (const auto& d : block->details)
        recorded.details.push_back({d.name, d.namespace_,
                                    d.status == detail_status::successful ? pod_result::successful
                                    : d.status == detail_status::skipped  ? pod_result::skipped
                                                                          : pod_result::failed,
                                    d.reason});
    recorded.skipped = st.result.skipped;
    st.resumed = plan_resume(recorded, st.in.pods, st.in.stateful_sets, st.in.replica_sets, uid);
  }
  for (const auto& s : st.in.stateful_sets)
    st.owner_annotations[describe(workload_ref{workload_kind::stateful_set, s->metadata.namespace_,
                                               s->metadata.name, s->metadata.uid})] =
      s->metadata.annotations;
  for (const auto& r : st.in.replica_sets)
    st.owner_annotations[describe(workload_ref{workload_kind::replica_set, r->metadata.namespace_,
                                               r->metadata.name, r->metadata.uid})] =
      r->metadata.annotations;

  pod_hyperconvergence::evaluation_input in;
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
  in.request_uid = uid;
  in.cool_off_period = st.run.cool_off;
  in.now = actor_now(self);
  in.max_per_run = std::max<int64_t>(0, cfg.max_non_hyperconverged_per_run - st.resumed.slots_used);
  bool report_only = st.ctx.explain || !st.ctx.plan_output.empty();
  in.every_pod = report_only || cfg.dry_run;
  auto result = pod_hyperconvergence::evaluate(in);
  publish_counts(result.counts);
  for (auto& w : result.warnings)
    log_kv(spdlog::level::warn, w, {{"request", request_name(self)}});
  const auto& c = result.counts;
  log_kv(spdlog::level::info,
         std::to_string(c.considered) + " pods considered: " + std::to_string(c.hyperconverged)
           + " hyperconverged, " + std::to_string(c.semi) + " semi, " + std::to_string(c.non)
           + " non; " + std::to_string(c.eligible) + " eligible, " + std::to_string(c.skipped)
           + " skipped, " + std::to_string(c.outstanding) + " outstanding"
           + (st.resume ? " (resumed: " + std::to_string(st.resumed.in_flight.size())
                            + " evictions adopted)"
                        : ""),
         {{"request", request_name(self)}});
  if (st.ctx.explain)
    return print_explanation(self, in, result);
  if (!st.ctx.plan_output.empty()) {
    auto budgets = budgets_by_pod(st.in.pods, values_of(st.in.budgets));
    auto text = st.ctx.plan_output == "json" ? render_pod_plan_json(result, budgets)
                                             : render_pod_plan_table(result, budgets);
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
    st.result.skipped = static_cast<int64_t>(result.skipped.size());
    st.result.outstanding = result.outstanding;
    return reply(self);
  }
  // Engine outcomes keep their detail slots whatever the skips take.
  auto engine_items = static_cast<int64_t>(result.eligible.size() + st.resumed.in_flight.size());
  if (engine_items > 0)
    self->send(st.ctx.status, atom::reserve_v, uid, std::string(kind_field), engine_items);
  for (auto& d : new_skips(result.skipped, st.resumed.unnamed_skips))
    record_outcome(self, d);
  st.result.outstanding.insert(st.result.outstanding.end(), result.outstanding.begin(),
                               result.outstanding.end());
  if (cfg.dry_run) {
    spdlog::info("dry run: request {} would evict {} pods\n{}", request_name(self),
                 result.eligible.size(),
                 render_pod_plan_table(result, budgets_by_pod(st.in.pods, values_of(st.in.budgets))));
    return reply(self);
  }
  if (st.stopped || (result.eligible.empty() && st.resumed.in_flight.empty()
                     && st.resumed.not_evicted.empty()))
    return reply(self);
  start_engine(self, std::move(result.eligible));
}

// The driver is asked about every driver-owned PV a considered pod uses, by name.
void ask_driver(kind_pointer self) {
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
  self->request(st.ctx.driver_actor, caf::infinite, std::move(q))
    .then(
      [=](replica_answer& answer) {
        auto& in = self->state.in;
        in.replicas = std::move(answer.replicas);
        for (auto& [pv, nodes] : in.replicas)
          normalize(nodes);
        for (auto& [pv, why] : answer.errors)
          in.replica_errors[pv] = why;
        evaluate_and_run(self);
      },
      [=](caf::error& err) {
        auto why = error_message(err);
        if (error_code(err) != ec::driver_error)
          why = driver_failure_reason(why);
        fail_run(self, run_failure_kind::driver, std::move(why));
      });
}

// Namespaces labelled to be left alone (actors/opted_out_namespaces.hpp).
void ask_opted_out_namespaces(kind_pointer self) {
  read_opted_out_namespaces(
    self, self->state.ctx.api,
    [=](std::set<std::string> names) {
      self->state.in.opted_out_namespaces = std::move(names);
      ask_driver(self);
    },
    [=](std::string why) { fail_run(self, run_failure_kind::api, std::move(why)); });
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

// One snapshot after another (each a shared list of the store, copied nowhere), then the
// namespaces and the driver.
void take_snapshots(kind_pointer self) {
  auto in = [=]() -> inputs& { return self->state.in; };
  snapshot<pod>(self, self->state.informers.pods, [=](auto pods) {
    in().pods = std::move(pods);
    snapshot<stateful_set>(self, self->state.informers.stateful_sets, [=](auto sets) {
      in().stateful_sets = std::move(sets);
      snapshot<replica_set>(self, self->state.informers.replica_sets, [=](auto sets) {
        in().replica_sets = std::move(sets);
        const auto& budgets = self->state.informers.pod_disruption_budgets;
        snapshot<pod_disruption_budget>(self, budgets, [=](auto bs) {
          in().budgets = std::move(bs);
          snapshot<persistent_volume_claim>(self, self->state.ctx.pvcs, [=](auto pvcs) {
            in().pvcs = std::move(pvcs);
            snapshot<persistent_volume>(self, self->state.ctx.pvs, [=](auto pvs) {
              in().pvs = std::move(pvs);
              snapshot<node>(self, self->state.ctx.nodes, [=](auto nodes) {
                in().nodes = values_of(nodes);
                snapshot<virtual_machine_instance>(self, self->state.ctx.vmis, [=](auto vmis) {
                  in().vmis = std::move(vmis);
                  snapshot<virtual_machine_instance_migration>(
                    self, self->state.ctx.vmims, [=](auto vmims) {
                      in().vmims = values_of(vmims);
                      ask_opted_out_namespaces(self);
                    });
                });
              });
            });
          });
        });
      });
    });
  });
}

/// The kind's informers list on demand: the first run asks, and waits for them.
void wait_for_informers(kind_pointer self) {
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

pod_hyperconvergence_actor::behavior_type gathering(kind_pointer self) {
  return {
    [=](kind_run&) -> caf::result<kind_result> {
      return to_caf_error(ec::invalid_value, "podHyperconvergence is running already");
    },
    [=](atom::tick) { wait_for_informers(self); },
    [=](atom::stop) {
      // Nothing written yet: the run ends here, with what the status already counts.
      self->state.stopped = true;
      reply(self);
    },
  };
}

pod_hyperconvergence_actor::behavior_type idle(kind_pointer self, controller_context ctx) {
  self->state.ctx = std::move(ctx);
  describe_metrics();
  return {
    [=](kind_run& run) -> caf::result<kind_result> {
      auto& st = self->state;
      st.request = std::move(run.request);
      st.resume = run.resume;
      st.promise = self->make_response_promise<kind_result>();
      if (const auto* block = block_of(st.request.status, kind_field); block && st.resume) {
        st.result.successful = block->successful;
        st.result.failed = block->failed;
        st.result.skipped = block->skipped;
      }
      auto spec = decode_spec(run.spec.json);
      if (!spec) {
        fail_run(self, run_failure_kind::invalid_spec, "invalid " + spec.err().message);
        return st.promise;
      }
      auto informers = pod_informers_of(st.ctx);
      if (!informers) {
        fail_run(self, run_failure_kind::internal, informers.err().message);
        return st.promise;
      }
      st.informers = *informers;
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
        return st.promise;
      }
      for (auto [reason, message] : {std::pair{"CoolOffClamped", st.run.cool_off_clamped},
                                     std::pair{"ParallelismClamped", st.run.parallelism_clamped}})
        if (!message.empty()) {
          log_kv(spdlog::level::warn, message, {{"request", request_name(self)}});
          self->send(st.ctx.events,
                     event_record{request_reference(st.request), "Warning", reason, message});
        }
      auto now = actor_now(self);
      st.run_deadline =
        now + std::chrono::duration_cast<timestamp::duration>(
                run_time_left(st.request.status.start_timestamp, now, cfg.max_run_duration));
      st.sync_deadline = now + std::chrono::duration_cast<timestamp::duration>(informer_sync_timeout);
      self->become(gathering(self));
      wait_for_informers(self);
      return st.promise;
    },
    [=](atom::tick) {},
    [=](atom::stop) { self->quit(); },
  };
}

} // namespace

void add_pod_hyperconvergence_types(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::schedopt_pod_hyperconvergence>();
}

pod_hyperconvergence_actor spawn_pod_hyperconvergence(caf::local_actor* parent,
                                                      const controller_context& ctx) {
  return parent->spawn<caf::linked>(idle, ctx);
}

} // namespace schedopt
