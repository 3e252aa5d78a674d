// VMIM watch actor: a per-object subscriber of the VMIM informer (never its own HTTP
// watch). The classification lives in model/vmim_outcome.
#include "actors/vmim_watch_actor.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/logging.hpp"
#include "actors/system_config.hpp"
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
};

using watch_pointer = vmim_watch_actor::stateful_pointer<vmim_watch_state>;

void report(watch_pointer self, std::string status, std::string reason) {
  auto& st = self->state;
  if (st.reported)
    return;
  st.reported = true;
  self->send(st.candidate, migration_result{st.vmim, std::move(status), std::move(reason)});
  self->send(st.ctx.vmims, atom::unsubscribe_v,
             caf::actor_cast<informer_subscriber_actor<virtual_machine_instance_migration>>(self));
  self->quit();
}

void observe(watch_pointer self, const virtual_machine_instance_migration& m) {
  if (self->state.uid.empty())
    self->state.uid = m.metadata.uid;
  auto outcome = classify_migration(m);
  switch (outcome.progress) {
    case migration_progress::running:
      return;
    case migration_progress::succeeded:
      return report(self, vm_status::successful, "");
    case migration_progress::failed:
      return report(self, vm_status::failed, outcome.reason);
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
      // A final phase seen only in the last state still counts as that outcome.
      auto outcome = classify_migration(e.object);
      if (outcome.progress != migration_progress::running)
        return observe(self, e.object);
      report(self, vm_status::failed, deleted_reason(self->state.ns, self->state.vmim));
    },
    [=](const informer_synced<virtual_machine_instance_migration>&) { arm_timeout(self); },
    [=](atom::timeout) {
      auto& st = self->state;
      if (st.reported)
        return;
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
