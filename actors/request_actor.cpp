// Request actor. The outcome rule is model/outcome; the kinds come from the registry.
#include "actors/request_actor.hpp"

#include <algorithm>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/logging.hpp"
#include "actors/optimization_kinds.hpp"
#include "actors/system_config.hpp"
#include "k8s/metrics.hpp"
#include "model/outcome.hpp"

namespace schedopt {

namespace {

struct request_state {
  static inline const char* name = "request";
  controller_context ctx;
  scheduling_optimization request;
  bool resume = false;
  std::vector<optimization_kind> registry;
  /// Every registered kind the spec names, in registry order, with what its run did.
  request_summary summary;
  std::size_t next_kind = 0; // summary.kinds index of the next kind to consider
  optimization_kind_actor kind; // the kind running now, if any
  /// Kinds that replied. Kept: a linked actor whose last handle goes away ends with a
  /// non-normal reason, which the link would pass on to this request.
  std::vector<optimization_kind_actor> finished;
  bool stopped = false;
};

using request_pointer = request_actor::stateful_pointer<request_state>;

const std::string& name_of(request_pointer self) { return self->state.request.metadata.name; }
/// The status writer and every message about the run name the request by uid.
const std::string& uid_of(request_pointer self) { return self->state.request.metadata.uid; }

void finalize(request_pointer self) {
  auto& st = self->state;
  if (st.stopped)
    return self->quit();
  auto outcome = decide_request_outcome(st.summary);
  log_kv(spdlog::level::info, "request Final " + to_string(outcome.status),
         {{"request", name_of(self)}, {"reason", outcome.reason}});
  k8s::default_metrics().counter_add("schedopt_requests_total",
                                     {{"status", to_string(outcome.status)}});
  self->request(st.ctx.status, caf::infinite, run_outcome{uid_of(self), outcome.status,
                                                          outcome.reason})
    .then(
      [=](bool written) {
        if (written) {
          auto& st = self->state;
          std::string message = "finished " + to_string(outcome.status);
          if (!outcome.reason.empty())
            message += ": " + outcome.reason;
          self->send(st.ctx.events,
                     event_record{request_reference(st.request),
                                  outcome.status == request_status::failed ? "Warning" : "Normal",
                                  "Completed", message});
        }
        self->quit();
      },
      [=](caf::error& err) {
        log_kv(spdlog::level::err, "final status not written",
               {{"request", name_of(self)}, {"error", error_message(err)}});
        self->quit();
      });
}

run_summary summary_of(const kind_result& r) {
  run_summary s;
  s.successful = r.successful;
  s.skipped = r.skipped;
  s.failed = r.failed;
  s.outstanding = r.outstanding;
  s.run_failure = r.run_failure;
  if (!r.stopped_by.empty())
    s.stopped_by = r.stopped_by;
  return s;
}

/// Runs the next enabled kind, one after another in registry order (docs/design.md §1),
/// then writes the outcome.
void run_next_kind(request_pointer self) {
  auto& st = self->state;
  if (st.stopped)
    return self->quit();
  auto& kinds = st.summary.kinds;
  while (st.next_kind < kinds.size() && !kinds[st.next_kind].enabled)
    ++st.next_kind;
  if (st.next_kind == kinds.size())
    return finalize(self);
  auto index = st.next_kind++;
  // summary.kinds follows the registry, entry for entry that the spec names.
  auto entry = std::find_if(st.registry.begin(), st.registry.end(),
                            [&](const optimization_kind& k) { return k.name == kinds[index].kind; });
  st.kind = entry->spawn(self, st.ctx);
  // The kind's status block exists from its start, zeros included.
  self->send(st.ctx.status, atom::reserve_v, uid_of(self), kinds[index].kind, int64_t{0});
  kind_run run{st.request, st.request.spec.kinds.at(kinds[index].kind), st.resume};
  self->request(st.kind, caf::infinite, std::move(run))
    .then(
      [=](const kind_result& r) {
        auto& st = self->state;
        st.finished.push_back(st.kind);
        st.kind = nullptr;
        st.summary.kinds[index].run = summary_of(r);
        run_next_kind(self);
      },
      [=](caf::error& err) {
        auto& st = self->state;
        st.finished.push_back(st.kind);
        st.kind = nullptr;
        st.summary.kinds[index].run.run_failure =
          run_failure{run_failure_kind::internal, "internal error: " + error_message(err)};
        run_next_kind(self);
      });
}

void run_kinds(request_pointer self) {
  auto& st = self->state;
  if (st.request.spec.invalid) {
    st.summary.spec_failure =
      run_failure{run_failure_kind::invalid_spec, "invalid " + *st.request.spec.invalid};
    return finalize(self);
  }
  // Kinds the spec names but this build does not know are ignored, as unknown fields are.
  for (const auto& kind : st.registry)
    if (auto i = st.request.spec.kinds.find(kind.name); i != st.request.spec.kinds.end())
      st.summary.kinds.push_back(kind_report{kind.name, i->second.enabled, {}});
  run_next_kind(self);
}

request_actor::behavior_type request_behavior(request_pointer self, controller_context ctx,
                                              scheduling_optimization so, bool resume,
                                              std::vector<optimization_kind> kinds) {
  auto& st = self->state;
  st.registry = std::move(kinds);
  st.ctx = std::move(ctx);
  st.request = std::move(so);
  st.resume = resume;
  self->request(st.ctx.status, caf::infinite, atom::open_v, st.request)
    .then(
      [=](const scheduling_optimization_status& recorded) {
        auto& st = self->state;
        st.request.status = recorded;
        bool running = is_running(recorded.stage);
        st.resume = running;
        if (running) {
          log_kv(spdlog::level::info, "request resuming in stage " + to_string(recorded.stage),
                 {{"request", name_of(self)}});
          return run_kinds(self);
        }
        log_kv(spdlog::level::info, "request started", {{"request", name_of(self)}});
        self->send(st.ctx.events, event_record{request_reference(st.request), "Normal",
                                               "Started", "optimization started"});
        stage_change change{uid_of(self), request_stage::evaluating, request_status::in_progress,
                            st.request.metadata.generation};
        // The kind gathers its inputs while the stage is written: it creates nothing
        // before its own Migrating write, which the writer orders after this one.
        self->request(st.ctx.status, caf::infinite, change)
          .then([=](bool written) {
            if (written)
              return;
            if (auto& kind = self->state.kind)
              self->send(kind, atom::stop_v);
            self->quit();
          });
        run_kinds(self);
      },
      [=](caf::error& err) {
        log_kv(spdlog::level::err, "request not opened",
               {{"request", name_of(self)}, {"error", error_message(err)}});
        self->quit();
      });
  return {
    [=](atom::stop) {
      auto& st = self->state;
      log_kv(spdlog::level::info,
             "request deleted mid-run: no new migrations; in-flight ones finish",
             {{"request", name_of(self)}});
      st.stopped = true;
      self->send(st.ctx.status, atom::close_v, uid_of(self));
      if (st.kind)
        self->send(st.kind, atom::stop_v);
      else
        self->quit();
    },
  };
}

} // namespace

request_actor spawn_request(caf::local_actor* parent, const controller_context& ctx,
                            scheduling_optimization request, bool resume,
                            const std::vector<optimization_kind>& kinds) {
  // Linked: a controller shutdown stops the run (and, through the kind's links, every
  // candidate and VMIM watch) instead of leaving it alive on its timers.
  return parent->spawn<caf::linked>(request_behavior, ctx, std::move(request), resume, kinds);
}

} // namespace schedopt
