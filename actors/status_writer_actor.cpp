// Status writer actor: owns one status_coalescer per request, one patch in flight per
// request (so writes stay ordered), and the promises of callers waiting for a write.
#include "actors/status_writer_actor.hpp"

#include <map>
#include <set>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/system_config.hpp"
#include "k8s/metrics.hpp"
#include "model/status_coalescer.hpp"

namespace schedopt {

namespace {

struct waiting_write {
  caf::typed_response_promise<bool> promise;
  uint64_t needs_patch = 0; // resolved once this patch number is acknowledged
};

struct request_entry {
  explicit request_entry(const status_writer_options& o)
    : coalescer(o.flush_interval, o.heartbeat_interval, o.max_details) {}
  status_coalescer coalescer;
  uint64_t taken = 0;        // patches taken from the coalescer
  uint64_t acknowledged = 0; // patches the API accepted
  std::string unsent;        // a patch whose write failed, re-sent on the next tick
  bool in_flight = false;
  bool gone = false; // deleted: nothing more is written
  std::vector<waiting_write> waiting;
};

struct status_writer_state {
  static inline const char* name = "status-writer";
  status_writer_options options;
  api_client_actor api;
  std::map<std::string, std::unique_ptr<request_entry>> requests;
  /// Deleted requests (404 or atom::close): late results for them are dropped, so a
  /// candidate finishing after the deletion writes nothing. atom::open clears the name.
  std::set<std::string> closed;
};

using writer_pointer = status_writer_actor::stateful_pointer<status_writer_state>;

void resolve_waiting(request_entry& e, bool written) {
  auto& w = e.waiting;
  for (auto i = w.begin(); i != w.end();) {
    if (!written || i->needs_patch <= e.acknowledged) {
      i->promise.deliver(written);
      i = w.erase(i);
    } else {
      ++i;
    }
  }
}

void write(writer_pointer self, const std::string& name, bool force);

void on_written(writer_pointer self, const std::string& name, uint64_t patch_no) {
  auto i = self->state.requests.find(name);
  if (i == self->state.requests.end())
    return;
  auto& e = *i->second;
  e.in_flight = false;
  e.acknowledged = std::max(e.acknowledged, patch_no);
  e.unsent.clear();
  k8s::default_metrics().counter_add("schedopt_status_patches_total", {{"result", "written"}});
  resolve_waiting(e, true);
  if (e.coalescer.final_written() && e.waiting.empty() && !e.coalescer.dirty()) {
    self->state.requests.erase(i);
    return;
  }
  write(self, name, false);
}

void on_failed(writer_pointer self, const std::string& name, std::string patch,
               const caf::error& err) {
  auto i = self->state.requests.find(name);
  if (i == self->state.requests.end())
    return;
  auto& e = *i->second;
  e.in_flight = false;
  if (error_code(err) == ec::not_found) {
    spdlog::info("request {} is gone; status writes for it stop", name);
    e.gone = true;
    resolve_waiting(e, false);
    self->state.closed.insert(name);
    self->state.requests.erase(i);
    return;
  }
  // 409, 5xx and transport errors are retried on the next tick, never dropped.
  k8s::default_metrics().counter_add("schedopt_status_patches_total", {{"result", "retried"}});
  spdlog::warn("status patch for {} failed ({}); retrying", name, error_message(err));
  e.unsent = std::move(patch);
}

void write(writer_pointer self, const std::string& name, bool force) {
  auto i = self->state.requests.find(name);
  if (i == self->state.requests.end())
    return;
  auto& e = *i->second;
  if (e.in_flight || e.gone)
    return;
  auto now = actor_now(self);
  std::string patch;
  uint64_t patch_no = e.taken;
  if (e.coalescer.due(now) || (force && e.coalescer.dirty())) {
    patch = e.coalescer.take_patch(now);
    patch_no = ++e.taken;
  } else if (!e.unsent.empty()) {
    patch = e.unsent;
  } else {
    return;
  }
  if (self->state.options.dry_run) {
    spdlog::debug("dry run: status patch for {}: {}", name, patch);
    e.acknowledged = patch_no;
    resolve_waiting(e, true);
    return;
  }
  e.in_flight = true;
  k8s::patch_request req{k8s::resources::scheduling_optimizations, "", name, patch, true, false};
  self->request(self->state.api, caf::infinite, std::move(req))
    .then([=](const k8s::api_response&) { on_written(self, name, patch_no); },
          [=](caf::error& err) { on_failed(self, name, patch, err); });
}

request_entry& entry_for(writer_pointer self, const std::string& name) {
  auto& slot = self->state.requests[name];
  if (!slot)
    slot = std::make_unique<request_entry>(self->state.options);
  return *slot;
}

/// The entry of a request that has not been closed (deleted); nullptr once it was, so a
/// late update cannot recreate it.
request_entry* open_entry(writer_pointer self, const std::string& name) {
  if (self->state.closed.count(name))
    return nullptr;
  return &entry_for(self, name);
}

caf::result<bool> wait_for_write(writer_pointer self, const std::string& name, request_entry& e) {
  if (e.gone)
    return false;
  // With nothing new to write (e.g. a resumed run re-entering its recorded stage) the
  // caller waits only for patches already taken, not for the next heartbeat.
  uint64_t needs = e.coalescer.dirty() ? e.taken + 1 : e.taken;
  if (needs <= e.acknowledged)
    return true;
  auto promise = self->make_response_promise<bool>();
  e.waiting.push_back({promise, needs});
  write(self, name, true);
  return promise;
}

// Every update the writer folds in; "coalesced" when it joins a patch already waiting to
// be written, i.e. it costs no API call of its own.
void count_update(bool already_dirty) {
  auto& m = k8s::default_metrics();
  m.counter_add("schedopt_status_updates_total", {});
  if (already_dirty)
    m.counter_add("schedopt_status_updates_coalesced_total", {});
}

status_writer_actor::behavior_type status_writer(writer_pointer self, api_client_actor api,
                                                 status_writer_options options) {
  auto& m = k8s::default_metrics();
  m.describe_counter("schedopt_status_patches_total", "Status merge patches by result.");
  m.describe_counter("schedopt_status_updates_total", "Status updates received by the status writer.");
  m.describe_counter("schedopt_status_updates_coalesced_total",
                     "Status updates folded into an already pending patch (no API call of their own).");
  self->state.api = std::move(api);
  self->state.options = options;
  self->delayed_send(self, to_clock(options.tick_interval), atom::tick_v);
  return {
    [=](atom::open, const scheduling_optimization& so) -> scheduling_optimization_status {
      self->state.closed.erase(so.metadata.name);
      auto& e = entry_for(self, so.metadata.name);
      if (!so.status.stage.empty())
        e.coalescer.restore(so.status, actor_now(self));
      e.coalescer.set_observed_generation(so.metadata.generation);
      return e.coalescer.current();
    },
    [=](const stage_change& c) -> caf::result<bool> {
      auto* e = open_entry(self, c.request);
      if (!e)
        return false;
      count_update(e->coalescer.dirty());
      e->coalescer.set_observed_generation(c.observed_generation);
      e->coalescer.set_stage(c.stage, c.status, actor_now(self));
      return wait_for_write(self, c.request, *e);
    },
    [=](atom::reserve, const std::string& name, int64_t slots) {
      if (auto* e = open_entry(self, name))
        e->coalescer.reserve_details(static_cast<std::size_t>(std::max<int64_t>(0, slots)));
    },
    [=](const vm_result& r) {
      auto* e = open_entry(self, r.request);
      if (!e)
        return;
      count_update(e->coalescer.dirty());
      e->coalescer.add_result(r.detail);
    },
    [=](const run_outcome& o) -> caf::result<bool> {
      auto* e = open_entry(self, o.request);
      if (!e)
        return false;
      count_update(e->coalescer.dirty());
      e->coalescer.finish(o.status, o.reason, actor_now(self));
      return wait_for_write(self, o.request, *e);
    },
    [=](atom::close, const std::string& name) {
      self->state.closed.insert(name);
      auto i = self->state.requests.find(name);
      if (i != self->state.requests.end()) {
        i->second->gone = true;
        resolve_waiting(*i->second, false);
        self->state.requests.erase(i);
      }
    },
    [=](atom::tick) {
      std::vector<std::string> names;
      for (auto& [name, e] : self->state.requests)
        names.push_back(name);
      for (auto& name : names)
        write(self, name, false);
      self->delayed_send(self, to_clock(self->state.options.tick_interval), atom::tick_v);
    },
  };
}

} // namespace

status_writer_actor spawn_status_writer(caf::actor_system& sys, api_client_actor api,
                                        status_writer_options options) {
  return sys.spawn(status_writer, std::move(api), options);
}

} // namespace schedopt
