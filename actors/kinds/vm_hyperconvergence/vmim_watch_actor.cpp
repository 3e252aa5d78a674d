// VMIM watch actor: a per-object subscriber of the VMIM informer (never its own HTTP
// watch). The classification lives in model/kinds/vm_hyperconvergence/vmim_outcome.
#include "actors/kinds/vm_hyperconvergence/vmim_watch_actor.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/logging.hpp"
#include "actors/system_config.hpp"
#include "model/decode.hpp"
#include "model/kinds/vm_hyperconvergence/vmim_outcome.hpp"

namespace schedopt {

namespace {

struct vmim_watch_state {
  static inline const char* name = "vmim-watch";
  controller_context ctx;
  candidate_actor candidate;
  std::string ns;
  std::string vmim;
  std::string uid;
  duration timeout;
  std::optional<timestamp> handed_off_at; // when the VMIM left Pending, once seen
  bool armed = false;     // the informer replayed the VMIM's current state
  bool timer_set = false;
  bool timed_out = false; // deleted for the timeout: only an outcome KubeVirt still
                          // reaches (the abort lost the race) or its end is awaited
  bool reported = false;
  bool giving_up = false; // held for a backup: the VMIM's delete is on its way
  // Failed without KubeVirt's cause: the reason to give if none turns up, and whether
  // the wait for it (then the events lookup) has begun.
  std::string causeless_reason;
  bool awaiting_cause = false;
  bool reading_events = false;
};

using watch_pointer = vmim_watch_actor::stateful_pointer<vmim_watch_state>;

/// How long a timed-out VMIM's abort may take before the timeout is reported anyway
/// (the VMIM never reaching an end KubeVirt reports). An abort is a libvirt job cancel:
/// seconds, unless virt-handler is gone.
constexpr auto abort_wait = std::chrono::minutes(2);

void report(watch_pointer self, detail_status status, std::string reason,
            std::string landed_on = {}) {
  auto& st = self->state;
  if (st.reported)
    return;
  st.reported = true;
  self->send(st.candidate, migration_result{st.vmim, status, std::move(reason),
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
        report(self, detail_status::failed,
               words.empty() ? st.causeless_reason : run_failed_reason(st.ns, st.vmim, words));
      },
      [self](caf::error& err) {
        log_kv(spdlog::level::info, "events of a failed vmim unreadable; reporting without its cause",
               {{"namespace", self->state.ns}, {"vmim", self->state.vmim}, {"error", error_message(err)}});
        report(self, detail_status::failed, self->state.causeless_reason);
      });
}

void set_timer(watch_pointer self);

/// KubeVirt holds the migration Pending while a backup of the VM runs, for as long as the
/// backup takes (docs/design.md §3.6). The VMIM is deleted before KubeVirt starts anything
/// of it, which frees the run's slot and leaves the backup alone, and the VM is Skipped in
/// KubeVirt's words; a later request moves it.
void give_up_for_backup(watch_pointer self, std::string kubevirt_words) {
  auto& st = self->state;
  if (st.giving_up || st.reported)
    return;
  st.giving_up = true;
  auto reason = backup_in_progress_reason(st.ns, st.vmim, kubevirt_words);
  log_kv(spdlog::level::info, "vmim held for a vm backup; deleting it",
         {{"namespace", st.ns}, {"vmim", st.vmim}, {"reason", kubevirt_words}});
  k8s::delete_request del{k8s::resources::vmims, st.ns, st.vmim, st.uid, "", ""};
  self->request(st.ctx.api, caf::infinite, std::move(del))
    .then([self, reason](const k8s::api_response&) {
            report(self, detail_status::skipped, reason);
          },
          [self, reason](caf::error& err) {
            auto& st = self->state;
            auto code = error_code(err);
            if (code != ec::not_found && code != ec::conflict)
              log_kv(spdlog::level::warn, "deleting a vmim held for a backup failed; it may run later",
                     {{"namespace", st.ns}, {"vmim", st.vmim}, {"error", error_message(err)}});
            report(self, detail_status::skipped, reason);
          });
}

void observe(watch_pointer self, const virtual_machine_instance_migration& m) {
  auto& st = self->state;
  if (st.uid.empty())
    st.uid = m.metadata.uid;
  if (st.giving_up)
    return;
  if (auto words = blocked_by_backup(m))
    return give_up_for_backup(self, std::move(*words));
  if (!st.handed_off_at && handed_off(m)) {
    st.handed_off_at = hand_off_time(m).value_or(actor_now(self));
    set_timer(self);
  }
  auto outcome = classify_migration(m);
  if (st.timed_out && outcome.progress == migration_progress::failed)
    return report(self, detail_status::failed, timed_out_reason(st.ns, st.vmim, st.timeout));
  switch (outcome.progress) {
    case migration_progress::running:
      return;
    case migration_progress::succeeded:
      return report(self, detail_status::successful, "",
                    m.migration ? m.migration->target_node : std::string{});
    case migration_progress::failed:
      if (outcome.cause_known || st.uid.empty())
        return report(self, detail_status::failed, outcome.reason);
      st.causeless_reason = outcome.reason;
      if (!st.awaiting_cause) {
        st.awaiting_cause = true;
        self->delayed_send(self, to_clock(st.ctx.config.failure_cause_wait), atom::done_v);
      }
      return;
  }
}

/// The timer runs once the informer has replayed the VMIM's current state (so a deadline
/// already past fires only after that state was classified) and KubeVirt has taken the
/// migration up: time in KubeVirt's queue is not the migration's.
void set_timer(watch_pointer self) {
  auto& st = self->state;
  if (!st.armed || !st.handed_off_at || st.timer_set || st.reported)
    return;
  st.timer_set = true;
  auto deadline = *st.handed_off_at + std::chrono::duration_cast<timestamp::duration>(st.timeout);
  auto left = std::max(duration::zero(),
                       std::chrono::duration_cast<duration>(deadline - actor_now(self)));
  self->delayed_send(self, to_clock(left), atom::timeout_v);
}

void arm_timeout(watch_pointer self) {
  self->state.armed = true;
  set_timer(self);
}

vmim_watch_actor::behavior_type vmim_watch(watch_pointer self, controller_context ctx,
                                           candidate_actor candidate, vmim_watch_target t) {
  auto& st = self->state;
  st.ctx = std::move(ctx);
  st.candidate = std::move(candidate);
  st.ns = t.ns;
  st.vmim = t.name;
  st.uid = t.uid;
  st.timeout = t.timeout;
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
      auto& st = self->state;
      if (st.giving_up)
        return; // this watch's own delete: its answer reports
      if (st.timed_out && outcome.progress != migration_progress::succeeded)
        return report(self, detail_status::failed, timed_out_reason(st.ns, st.vmim, st.timeout));
      if (outcome.progress == migration_progress::failed && !outcome.cause_known && !self->state.uid.empty()) {
        self->state.causeless_reason = outcome.reason;
        return report_from_events(self);
      }
      if (outcome.progress != migration_progress::running)
        return observe(self, e.object);
      report(self, detail_status::failed, deleted_reason(self->state.ns, self->state.vmim));
    },
    [=](atom::done) { report_from_events(self); },
    [=](const informer_synced<virtual_machine_instance_migration>&) { arm_timeout(self); },
    [=](atom::timeout) {
      auto& st = self->state;
      if (st.reported || st.timed_out)
        return;
      if (st.awaiting_cause)
        return report_from_events(self); // final already: nothing to time out
      auto configured = st.timeout;
      log_kv(spdlog::level::warn,
             "vmim not final " + format_go_duration(configured)
               + " after KubeVirt took it up; deleting it",
             {{"namespace", st.ns}, {"vmim", st.vmim}});
      // After the hand-off a delete only asks KubeVirt to abort (its finalizer holds the
      // VMIM until the migration ends): a migration that still completes is a success,
      // one that ends otherwise is the timeout.
      st.timed_out = true;
      // The uid precondition: 409 means the name now holds another VMIM, so the one
      // that timed out is gone as surely as on a 404.
      k8s::delete_request del{k8s::resources::vmims, st.ns, st.vmim, st.uid, "", ""};
      self->request(st.ctx.api, caf::infinite, std::move(del))
        .then([](const k8s::api_response&) {},
              [self](caf::error& err) {
                auto& st = self->state;
                auto code = error_code(err);
                if (code == ec::conflict)
                  log_kv(spdlog::level::info, "timed-out vmim already replaced; not deleted",
                         {{"namespace", st.ns}, {"vmim", st.vmim}});
                else if (code != ec::not_found)
                  log_kv(spdlog::level::warn, "deleting timed-out vmim failed",
                         {{"namespace", st.ns}, {"vmim", st.vmim}, {"error", error_message(err)}});
                // Nothing more will come of this VMIM that the watch can wait for.
                report(self, detail_status::failed, timed_out_reason(st.ns, st.vmim, st.timeout));
              });
      // The end of an abort that KubeVirt never reports: the result is not held for ever.
      self->delayed_send(self, to_clock(abort_wait), atom::close_v);
    },
    [=](atom::close) {
      auto& st = self->state;
      report(self, detail_status::failed, timed_out_reason(st.ns, st.vmim, st.timeout));
    },
  };
}

} // namespace

vmim_watch_actor spawn_vmim_watch(caf::local_actor* parent, const controller_context& ctx,
                                  candidate_actor candidate, vmim_watch_target target) {
  return parent->spawn<caf::linked>(vmim_watch, ctx, std::move(candidate), std::move(target));
}

} // namespace schedopt
