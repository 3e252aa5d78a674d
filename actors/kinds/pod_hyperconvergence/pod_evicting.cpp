// The eviction engine's I/O (model/kinds/pod_hyperconvergence/eviction_engine): its
// owner-record writes, its evictions through the Eviction API, the replacements it awaits
// read from the pod informer, its outcomes into the status block, and the ticks that wake
// it.
#include <algorithm>
#include <chrono>

#include <caf/typed_event_based_actor.hpp>
#include <nlohmann/json.hpp>

#include "actors/clock.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_run_state.hpp"
#include "k8s/backoff.hpp"
#include "k8s/metrics.hpp"
#include "model/kinds/pod_hyperconvergence/eviction.hpp"

namespace schedopt::pod_run {

namespace {

/// How often replacements are looked for in the pod informer's store while any is awaited.
constexpr duration replacement_check_interval = std::chrono::seconds(1);

const std::string& request_name(run_pointer self) { return self->state.request.metadata.name; }

object_reference pod_reference(const std::string& key) {
  auto slash = key.find('/');
  object_reference ref;
  ref.api_version = "v1";
  ref.kind = "Pod";
  ref.namespace_ = key.substr(0, slash);
  ref.name = key.substr(slash + 1);
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

const char* outcome_label(pod_result r) {
  return r == pod_result::successful ? "successful" : r == pod_result::skipped ? "skipped" : "failed";
}

/// Makes sure a tick arrives by `when` (one already due earlier does).
void wake_at(run_pointer self, timestamp when) {
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

void send_owner_write(run_pointer self, owner_write w) {
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

void send_eviction(run_pointer self, const eviction_call& call) {
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

void observe_replacements(run_pointer self) {
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

void announce_eviction(run_pointer self, const accepted_eviction& a) {
  std::string nodes;
  for (auto& n : a.best_nodes)
    nodes += (nodes.empty() ? "" : ", ") + n;
  log_kv(spdlog::level::info, "pod evicted",
         {{"request", request_name(self)}, {"pod", a.key}, {"owner", describe(a.owner)},
          {"answer", to_string(a.verdict)}});
  self->send(self->state.ctx.events,
             event_record{pod_reference(a.key), "Normal", "Evicted",
                          "evicted by schedopt request " + request_name(self) + " so that "
                            + describe(a.owner)
                            + " re-creates it on a node holding its volumes' replicas (" + nodes
                            + ")"});
}

/// The engine is done: what it never tried is outstanding, and a run whose time was up
/// says so.
void engine_finished(run_pointer self, timestamp now) {
  auto& st = self->state;
  auto& out = st.engine->outstanding();
  st.result.outstanding.insert(st.result.outstanding.end(), out.begin(), out.end());
  if (!out.empty() && !st.engine->stopped() && now >= st.run_deadline)
    say_deadline_reached(self, "no new evictions");
  finish_run(self);
}

} // namespace

void record_outcome(run_pointer self, const pod_detail& d) {
  auto& st = self->state;
  switch (d.status) {
    case pod_result::successful: ++st.result.successful; break;
    case pod_result::skipped: ++st.result.skipped; break;
    case pod_result::failed:
      ++st.result.failed;
      st.failed.push_back(pod_key(d.namespace_, d.name));
      break;
  }
  self->send(st.ctx.status, detail_result{st.request.metadata.uid, st.kind_field, to_kind_detail(d)});
}

void step(run_pointer self) {
  auto& st = self->state;
  auto& engine = *st.engine;
  auto now = actor_now(self);
  engine.advance(now);
  for (auto& w : engine.take_owner_writes(now))
    send_owner_write(self, std::move(w));
  for (auto& call : engine.take_evictions())
    send_eviction(self, call);
  for (auto& a : engine.take_accepted())
    announce_eviction(self, a);
  for (auto& d : engine.take_outcomes()) {
    k8s::default_metrics().counter_add("schedopt_pod_outcomes_total",
                                       {{"result", outcome_label(d.status)}});
    record_outcome(self, d);
  }
  if (engine.finished())
    return engine_finished(self, now);
  auto next = engine.next_wakeup();
  if (engine.awaiting() > 0) {
    auto check = now + std::chrono::duration_cast<timestamp::duration>(replacement_check_interval);
    next = next ? std::min(*next, check) : check;
  }
  if (next)
    wake_at(self, std::min(*next, st.run_deadline));
}

void tick(run_pointer self) {
  auto& st = self->state;
  if (st.tick_due && *st.tick_due <= actor_now(self))
    st.tick_due.reset();
  if (st.engine->awaiting() > 0)
    return observe_replacements(self);
  step(self);
}

} // namespace schedopt::pod_run
