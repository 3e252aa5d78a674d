// Controller actor: keeps the informer's view of every request, decides which runs
// (model/request_queue) and supervises that one request actor.
#include "actors/controller_actor.hpp"

#include <map>
#include <set>

#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/logging.hpp"
#include "actors/request_actor.hpp"
#include "k8s/metrics.hpp"
#include "model/request_queue.hpp"

namespace schedopt {

namespace {

struct controller_state {
  static inline const char* name = "controller";
  controller_context ctx;
  scheduling_optimization_informer_actor informer;
  /// The open requests the informer shows (and the running one), by uid: a request
  /// deleted and re-created with the same name is a new request (docs/design.md §1.3).
  /// Final requests are dropped, so a controller that serves requests for a year keeps
  /// only the few still open.
  std::map<std::string, scheduling_optimization> requests;
  std::map<std::string, std::string> uid_by_name; // to spot a re-create seen as an update
  std::string active;                   // uid of the running request, "" when idle
  request_actor active_actor;
  /// Request actors whose down or exit message has not arrived yet: a run's own end is
  /// told apart from a failure by them, and an address is dropped once both arrived.
  std::map<caf::actor_addr, int> ending_runs;
  std::set<std::string> finished_uids;  // finished here, the informer not yet showing Final
  std::set<std::string> marked_pending; // uids already written as Pending
  bool started = false;
  /// The informer's replay is complete: before that, the oldest (or the one to resume)
  /// may not have been seen yet, so nothing is decided.
  bool synced = false;
};

using controller_pointer = controller_actor::stateful_pointer<controller_state>;

void mark_pending(controller_pointer self, const std::vector<std::string>& uids) {
  auto& st = self->state;
  for (auto& uid : uids) {
    auto& so = st.requests[uid];
    if (!st.marked_pending.insert(uid).second)
      continue;
    // Fire and forget: the writer retries until the Pending stage is recorded.
    caf::anon_send(st.ctx.status, atom::open_v, so);
    caf::anon_send(st.ctx.status, stage_change{uid, request_stage::pending, request_status::pending,
                                               so.metadata.generation});
  }
}

/// A request created while maxPendingRequests others wait: Final Failed at once.
void reject_queue_full(controller_pointer self, const std::string& uid, std::size_t pending) {
  auto& st = self->state;
  auto& so = st.requests[uid];
  auto reason = "queue full: " + std::to_string(pending) + " requests pending";
  log_kv(spdlog::level::warn, "request refused: " + reason, {{"request", so.metadata.name}, {"uid", uid}});
  k8s::default_metrics().counter_add("schedopt_requests_total",
                                     {{"status", to_string(request_status::failed)}});
  caf::anon_send(st.ctx.status, atom::open_v, so);
  caf::anon_send(st.ctx.status, run_outcome{uid, request_status::failed, reason});
  caf::anon_send(st.ctx.events, event_record{request_reference(so), "Warning", "QueueFull",
                                             "not run: " + reason + " (maxPendingRequests)"});
  st.finished_uids.insert(uid); // until the informer shows it Final
}

void reconsider(controller_pointer self) {
  auto& st = self->state;
  if (!st.started || !st.synced)
    return;
  std::vector<const scheduling_optimization*> candidates;
  for (auto& [uid, so] : st.requests)
    if (!st.finished_uids.count(uid) && uid != st.active)
      candidates.push_back(&so);
  // While a run is on, the request chosen next waits too, so it counts against the bound.
  auto max_pending = static_cast<std::size_t>(st.ctx.config.max_pending_requests);
  auto decision = decide_queue_borrowed(candidates, st.active.empty() ? max_pending : max_pending - 1);
  for (auto& uid : decision.to_reject)
    reject_queue_full(self, uid, decision.open - (st.active.empty() ? 1 : 0));
  bool busy = !st.active.empty();
  // Waiting = open requests other than the running one (the candidates exclude an active
  // run; without one, the request chosen now starts).
  auto waiting_count = decision.open - (!busy && decision.run ? 1 : 0);
  k8s::default_metrics().gauge_set("schedopt_requests_pending", {},
                                   static_cast<double>(waiting_count));
  // decide_queue never lists the request it chose in to_pending. While another request
  // runs, a new one chosen next waits too: it shows Pending now, not only once the
  // running one is Final. A stage past Pending is never written back.
  auto waiting = decision.to_pending;
  if (busy && decision.run && st.requests[*decision.run].status.stage == request_stage::none)
    waiting.push_back(*decision.run);
  mark_pending(self, waiting);
  if (busy || !decision.run)
    return;
  auto& so = st.requests[*decision.run];
  st.active = so.metadata.uid;
  st.active_actor = spawn_request(self, st.ctx, so, decision.resume);
  self->monitor(st.active_actor);
  st.ending_runs.emplace(st.active_actor.address(), 0);
  log_kv(spdlog::level::info, decision.resume ? "request promoted (resume)" : "request promoted",
         {{"request", so.metadata.name}, {"uid", so.metadata.uid}});
}

/// The request with this uid is gone: stop its run, or stop writing for it. The uid is a
/// copy: a caller may pass the uid_by_name entry this erases (found by ASan).
void forget(controller_pointer self, std::string uid) {
  auto& st = self->state;
  auto i = st.requests.find(uid);
  if (i == st.requests.end())
    return;
  if (auto n = st.uid_by_name.find(i->second.metadata.name);
      n != st.uid_by_name.end() && n->second == uid)
    st.uid_by_name.erase(n);
  st.requests.erase(i);
  st.marked_pending.erase(uid);
  st.finished_uids.erase(uid);
  if (st.active == uid && st.active_actor)
    self->send(st.active_actor, atom::stop_v);
  else
    self->send(st.ctx.status, atom::close_v, uid);
}

bool is_closed(const scheduling_optimization& so) {
  return so.status.stage == request_stage::final_ || so.metadata.deletion_timestamp;
}

/// A request the informer shows Final (or being deleted): forget what was kept to run
/// or mark it, and let the queue move on.
void reconsider_after_close(controller_pointer self, const std::string& uid) {
  auto& st = self->state;
  st.finished_uids.erase(uid);
  st.marked_pending.erase(uid);
  reconsider(self);
}

/// Counts one of a run's two end messages (down, exit); true once both have arrived.
bool run_end_seen(controller_pointer self, const caf::actor_addr& run) {
  auto& runs = self->state.ending_runs;
  auto i = runs.find(run);
  if (i == runs.end())
    return false;
  if (++i->second == 2)
    runs.erase(i);
  return true;
}

void remember(controller_pointer self, const scheduling_optimization& so) {
  auto& st = self->state;
  auto& uid = so.metadata.uid;
  // Deleted and re-created under the same name while the watch was away: the informer
  // reports it as an update, but it is another request.
  if (auto n = st.uid_by_name.find(so.metadata.name); n != st.uid_by_name.end() && n->second != uid) {
    log_kv(spdlog::level::info, "request was re-created (uid " + n->second + " -> " + uid + ")",
           {{"request", so.metadata.name}, {"uid", uid}});
    forget(self, n->second);
  }
  if (is_closed(so) && uid != st.active) {
    if (auto n = st.uid_by_name.find(so.metadata.name); n != st.uid_by_name.end() && n->second == uid)
      st.uid_by_name.erase(n);
    // Nothing is decided on a closed request again; its creator deletes it.
    if (st.requests.erase(uid) > 0 || st.finished_uids.count(uid))
      reconsider_after_close(self, uid);
    return;
  }
  st.uid_by_name[so.metadata.name] = uid;
  st.requests[uid] = so;
  reconsider(self);
}

controller_actor::behavior_type controller(controller_pointer self, controller_context ctx,
                                           scheduling_optimization_informer_actor informer) {
  self->state.ctx = std::move(ctx);
  self->state.informer = std::move(informer);
  self->set_down_handler([=](const caf::down_msg& down) {
    auto& st = self->state;
    run_end_seen(self, down.source);
    if (down.source != st.active_actor.address())
      return;
    if (down.reason && down.reason != caf::exit_reason::normal)
      log_kv(spdlog::level::err, "request run ended abnormally",
             {{"request", st.requests.count(st.active) ? st.requests[st.active].metadata.name : ""},
              {"uid", st.active},
              {"error", to_string(down.reason)}});
    // The informer may already show the run Final; else remember it ended here until
    // the informer catches up.
    if (auto i = st.requests.find(st.active); i != st.requests.end() && is_closed(i->second)) {
      if (auto n = st.uid_by_name.find(i->second.metadata.name);
          n != st.uid_by_name.end() && n->second == st.active)
        st.uid_by_name.erase(n);
      st.requests.erase(i);
      st.marked_pending.erase(st.active);
    } else {
      st.finished_uids.insert(st.active);
    }
    st.active.clear();
    st.active_actor = nullptr;
    reconsider(self);
  });
  // The request actor is linked, so a shutdown of the controller tears its whole run
  // down (request, kind, supervisor, candidates, VMIM watches) and nothing is orphaned.
  // Its own end arrives as a down message (monitored) and never takes the controller.
  // The link's exit message may arrive before or after the down message, so a run's
  // own end is recognised by reason (normal) or by source (a request actor of ours).
  self->set_exit_handler([=](const caf::exit_msg& msg) {
    if (run_end_seen(self, msg.source) || msg.reason == caf::exit_reason::normal)
      return;
    self->quit(msg.reason);
  });
  return {
    [=](atom::run) {
      auto& st = self->state;
      if (st.started)
        return;
      st.started = true;
      spdlog::info("controller started (driver {}, {})", st.ctx.driver.name,
                   st.ctx.config.dry_run ? "dry run" : "live");
      self->send(st.informer, atom::subscribe_v,
                 caf::actor_cast<informer_subscriber_actor<scheduling_optimization>>(self));
    },
    [=](const object_added<scheduling_optimization>& e) { remember(self, e.object); },
    [=](const object_updated<scheduling_optimization>& e) { remember(self, e.object); },
    [=](const object_deleted<scheduling_optimization>& e) {
      self->send(self->state.ctx.events, atom::close_v, request_reference(e.object));
      forget(self, e.object.metadata.uid);
    },
    [=](const informer_synced<scheduling_optimization>&) {
      self->state.synced = true;
      reconsider(self);
    },
  };
}

} // namespace

controller_actor spawn_controller(caf::actor_system& sys, controller_context ctx,
                                  scheduling_optimization_informer_actor requests) {
  return sys.spawn(controller, std::move(ctx), std::move(requests));
}

} // namespace schedopt
