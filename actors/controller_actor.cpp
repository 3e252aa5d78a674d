// Controller actor: keeps the informer's view of every request, decides which runs
// (model/request_queue) and supervises that one request actor.
#include "actors/controller_actor.hpp"

#include <map>
#include <set>

#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/request_actor.hpp"
#include "k8s/metrics.hpp"
#include "model/request_queue.hpp"

namespace schedopt {

namespace {

struct controller_state {
  static inline const char* name = "controller";
  controller_context ctx;
  scheduling_optimization_informer_actor informer;
  std::map<std::string, scheduling_optimization> requests; // by name
  std::string active;                   // name of the running request, "" when idle
  request_actor active_actor;
  std::set<std::string> finished_uids;  // finished here; the informer may lag behind
  std::set<std::string> marked_pending; // uids already written as Pending
  bool started = false;
};

using controller_pointer = controller_actor::stateful_pointer<controller_state>;

void mark_pending(controller_pointer self, const std::vector<std::string>& names) {
  auto& st = self->state;
  for (auto& name : names) {
    auto& so = st.requests[name];
    if (!st.marked_pending.insert(so.metadata.uid).second)
      continue;
    // Fire and forget: the writer retries until the Pending stage is recorded.
    caf::anon_send(st.ctx.status, atom::open_v, so);
    caf::anon_send(st.ctx.status, stage_change{name, stage::pending, run_status::pending,
                                               so.metadata.generation});
  }
}

void reconsider(controller_pointer self) {
  auto& st = self->state;
  if (!st.started)
    return;
  std::vector<scheduling_optimization> candidates;
  for (auto& [name, so] : st.requests)
    if (!st.finished_uids.count(so.metadata.uid) && name != st.active)
      candidates.push_back(so);
  auto decision = decide_queue(candidates);
  bool busy = !st.active.empty();
  // Waiting = open requests other than the running one (the candidates exclude an active
  // run; without one, the request chosen now starts).
  auto waiting_count = decision.open - (!busy && decision.run ? 1 : 0);
  k8s::default_metrics().gauge_set("schedopt_requests_pending", {},
                                   static_cast<double>(waiting_count));
  // decide_queue never lists the request it chose in to_pending. While another request
  // runs, that one waits too: it shows Pending now, not only once the running one is Final.
  auto waiting = decision.to_pending;
  if (busy && decision.run && st.requests[*decision.run].status.stage != stage::pending)
    waiting.push_back(*decision.run);
  mark_pending(self, waiting);
  if (busy || !decision.run)
    return;
  auto& so = st.requests[*decision.run];
  st.active = so.metadata.name;
  st.active_actor = spawn_request(self, st.ctx, so, decision.resume);
  self->monitor(st.active_actor);
  spdlog::info("request {} promoted{}", st.active, decision.resume ? " (resume)" : "");
}

void remember(controller_pointer self, const scheduling_optimization& so) {
  self->state.requests[so.metadata.name] = so;
  reconsider(self);
}

controller_actor::behavior_type controller(controller_pointer self, controller_context ctx,
                                           scheduling_optimization_informer_actor informer) {
  self->state.ctx = std::move(ctx);
  self->state.informer = std::move(informer);
  self->set_down_handler([=](const caf::down_msg& down) {
    auto& st = self->state;
    if (down.source != st.active_actor.address())
      return;
    if (auto i = st.requests.find(st.active); i != st.requests.end())
      st.finished_uids.insert(i->second.metadata.uid);
    st.active.clear();
    st.active_actor = nullptr;
    reconsider(self);
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
      auto& st = self->state;
      st.requests.erase(e.object.metadata.name);
      if (st.active == e.object.metadata.name && st.active_actor)
        self->send(st.active_actor, atom::stop_v);
      else
        self->send(st.ctx.status, atom::close_v, e.object.metadata.name);
    },
    [=](const informer_synced<scheduling_optimization>&) { reconsider(self); },
  };
}

} // namespace

controller_actor spawn_controller(caf::actor_system& sys, controller_context ctx,
                                  scheduling_optimization_informer_actor requests) {
  return sys.spawn(controller, std::move(ctx), std::move(requests));
}

} // namespace schedopt
