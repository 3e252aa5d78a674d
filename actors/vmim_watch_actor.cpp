// VMIM watch actor: a per-object subscriber of the VMIM informer (never its own HTTP
// watch). The classification lives in model/vmim_outcome.
#include "actors/vmim_watch_actor.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/logging.hpp"
#include "actors/system_config.hpp"
#include "model/decode.hpp"
#include "model/vmim_outcome.hpp"

namespace schedopt {

namespace {

struct vmim_watch_state {
  static inline const char* name = "vmim-watch";
  controller_context ctx;
  candidate_actor candidate;
  std::string ns;
  std::string vmim;
  std::string uid;
  timestamp deadline;
  bool armed = false;
  bool reported = false;
  // Failed without KubeVirt's cause: the reason to give if none turns up, and whether
  // the wait for it (then the events lookup) has begun.
  std::string causeless_reason;
  bool awaiting_cause = false;
  bool reading_events = false;
};

using watch_pointer = vmim_watch_actor::stateful_pointer<vmim_watch_state>;

void report(watch_pointer self, std::string status, std::string reason,
            std::string landed_on = {}) {
  auto& st = self->state;
  if (st.reported)
    return;
  st.reported = true;
  self->send(st.candidate, migration_result{st.vmim, std::move(status), std::move(reason),
                                            std::move(landed_on)});
  self->send(st.ctx.vmims, atom::unsubscribe_v,
             caf::actor_cast<informer_subscriber_actor<virtual_machine_instance_migration>>(self));
  self->quit();
}

/// The cause of a Failed VMIM from its events (KubeVirt's migration controller records
/// every failure it decides there), else the reason already known.
void report_from_events(watch_pointer self) {
  auto& st = self->state;
  if (st.reported || st.reading_events)
    return;
  st.reading_events = true;
  k8s::list_request lr;
  lr.res = k8s::resources::events;
  lr.namespace_ = st.ns;
  lr.field_selector = "involvedObject.uid=" + st.uid;
  self->request(st.ctx.api, std::chrono::seconds(30), std::move(lr))
    .then(
      [self](const k8s::list_response& listed) {
        std::vector<event> events;
        for (const auto& page : listed.pages)
          if (auto decoded = decode_list<event>(page))
            for (auto& e : decoded->items)
              events.push_back(std::move(e));
        auto words = failure_from_events(events);
        auto& st = self->state;
        report(self, vm_status::failed,
               words.empty() ? st.causeless_reason : run_failed_reason(st.ns, st.vmim, words));
      },
      [self](caf::error& err) {
        log_kv(spdlog::level::info, "events of a failed vmim unreadable; reporting without its cause",
               {{"namespace", self->state.ns}, {"vmim", self->state.vmim}, {"error", error_message(err)}});
        report(self, vm_status::failed, self->state.causeless_reason);
      });
}

void observe(watch_pointer self, const virtual_machine_instance_migration& m) {
  auto& st = self->state;
  if (st.uid.empty())
    st.uid = m.metadata.uid;
  auto outcome = classify_migration(m);
  switch (outcome.progress) {
    case migration_progress::running:
      return;
    case migration_progress::succeeded:
      return report(self, vm_status::successful, "",
                    m.migration ? m.migration->target_node : std::string{});
    case migration_progress::failed:
      if (outcome.cause_known || st.uid.empty())
        return report(self, vm_status::failed, outcome.reason);
      st.causeless_reason = outcome.reason;
      if (!st.awaiting_cause) {
        st.awaiting_cause = true;
        self->delayed_send(self, to_clock(st.ctx.config.failure_cause_wait), atom::done_v);
      }
      return;
  }
}

/// Armed once the informer has replayed the VMIM's current state (or said it has none),
/// so a deadline already past fires only after that state was classified.
void arm_timeout(watch_pointer self) {
  auto& st = self->state;
  if (st.armed || st.reported)
    return;
  st.armed = true;
  auto left = std::max(duration::zero(),
                       std::chrono::duration_cast<duration>(st.deadline - actor_now(self)));
  self->delayed_send(self, to_clock(left), atom::timeout_v);
}

vmim_watch_actor::behavior_type vmim_watch(watch_pointer self, controller_context ctx,
                                           candidate_actor candidate, vmim_watch_target t) {
  auto& st = self->state;
  st.ctx = std::move(ctx);
  st.candidate = std::move(candidate);
  st.ns = t.ns;
  st.vmim = t.name;
  st.uid = t.uid;
  st.deadline = t.deadline;
  if (t.known)
    observe(self, *t.known);
  if (!st.reported)
    self->send(st.ctx.vmims, atom::subscribe_v,
               caf::actor_cast<informer_subscriber_actor<virtual_machine_instance_migration>>(self),
               t.ns, t.name);
  return {
    [=](const object_added<virtual_machine_instance_migration>& e) { observe(self, e.object); },
    [=](const object_updated<virtual_machine_instance_migration>& e) { observe(self, e.object); },
    [=](const object_deleted<virtual_machine_instance_migration>& e) {
      // A final phase seen only in the last state still counts as that outcome; a
      // Failed one without its cause is looked up in its events now (no update can
      // bring the cause any more).
      auto outcome = classify_migration(e.object);
      if (outcome.progress == migration_progress::failed && !outcome.cause_known && !self->state.uid.empty()) {
        self->state.causeless_reason = outcome.reason;
        return report_from_events(self);
      }
      if (outcome.progress != migration_progress::running)
        return observe(self, e.object);
      report(self, vm_status::failed, deleted_reason(self->state.ns, self->state.vmim));
    },
    [=](atom::done) { report_from_events(self); },
    [=](const informer_synced<virtual_machine_instance_migration>&) { arm_timeout(self); },
    [=](atom::timeout) {
      auto& st = self->state;
      if (st.reported)
        return;
      if (st.awaiting_cause)
        return report_from_events(self); // final already: nothing to time out
      auto configured = st.ctx.config.migration_timeout;
      log_kv(spdlog::level::warn,
             "vmim not final after " + format_go_duration(configured) + "; deleting it",
             {{"namespace", st.ns}, {"vmim", st.vmim}});
      // The uid precondition: 409 means the name now holds another VMIM, so the one
      // that timed out is gone as surely as on a 404.
      k8s::delete_request del{k8s::resources::vmims, st.ns, st.vmim, st.uid, "", ""};
      self->request(st.ctx.api, caf::infinite, std::move(del))
        .then([](const k8s::api_response&) {},
              [st_ns = st.ns, st_name = st.vmim](caf::error& err) {
                auto code = error_code(err);
                if (code == ec::conflict)
                  log_kv(spdlog::level::info, "timed-out vmim already replaced; not deleted",
                         {{"namespace", st_ns}, {"vmim", st_name}});
                else if (code != ec::not_found)
                  log_kv(spdlog::level::warn, "deleting timed-out vmim failed",
                         {{"namespace", st_ns}, {"vmim", st_name}, {"error", error_message(err)}});
              });
      report(self, vm_status::failed, timed_out_reason(st.ns, st.vmim, configured));
    },
  };
}

} // namespace

vmim_watch_actor spawn_vmim_watch(caf::local_actor* parent, const controller_context& ctx,
                                  candidate_actor candidate, vmim_watch_target target) {
  return parent->spawn<caf::linked>(vmim_watch, ctx, std::move(candidate), std::move(target));
}

} // namespace schedopt
