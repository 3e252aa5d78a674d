// Status writer actor: owns one status_coalescer per request (keyed by uid), one patch
// in flight per request (so writes stay ordered), the per-request retry backoff, and the
// promises of callers waiting for a write.
#include "actors/status_writer_actor.hpp"

#include <algorithm>
#include <map>

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
  request_entry(const status_writer_options& o, std::string uid, std::string name)
    : uid(std::move(uid)),
      name(std::move(name)),
      coalescer(o.flush_interval, o.heartbeat_interval, o.max_details) {}
  std::string uid;
  std::string name; // the patch path; the patch's uid test guards it
  status_coalescer coalescer;
  uint64_t taken = 0;        // patches taken from the coalescer
  uint64_t acknowledged = 0; // patches the API accepted
  std::string unsent;        // a patch whose write failed, re-sent once retry_at passed
  duration retry_delay{0};   // the backoff after the last transient failure; 0 after a write
  timestamp retry_at{};      // nothing is sent for this request before
  bool in_flight = false;
  std::vector<waiting_write> waiting;
};

struct status_writer_state {
  static inline const char* name = "status-writer";
  status_writer_options options;
  api_client_actor api;
  /// Open requests only. A request whose writes stopped (deleted: 404, the uid test
  /// failed, atom::close; or a patch rejected for good) is erased, so a late result for
  /// it finds no entry and writes nothing, and nothing is kept per request once it ends.
  /// atom::open of the uid starts over.
  std::map<std::string, std::unique_ptr<request_entry>> requests; // by uid
  /// Shutdown: every pending update is written at once, and these callers hear when
  /// nothing is left.
  bool flushing = false;
  std::vector<caf::typed_response_promise<bool>> flushes;
};

using writer_pointer = status_writer_actor::stateful_pointer<status_writer_state>;

void count_patch(const char* result) {
  k8s::default_metrics().counter_add("schedopt_status_patches_total", {{"result", result}});
}

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

void write(writer_pointer self, const std::string& uid, bool force);

/// Answers flush callers once no entry has anything left to write.
void check_flushes(writer_pointer self) {
  auto& st = self->state;
  if (st.flushes.empty())
    return;
  for (auto& [uid, e] : st.requests)
    if (e->in_flight || e->coalescer.dirty() || !e->unsent.empty())
      return;
  for (auto& p : st.flushes)
    p.deliver(true);
  st.flushes.clear();
}

/// No more writes for this uid: waiters hear false, late updates are dropped.
void stop_writing(writer_pointer self, const std::string& uid) {
  auto& st = self->state;
  auto i = st.requests.find(uid);
  if (i == st.requests.end())
    return;
  resolve_waiting(*i->second, false);
  st.requests.erase(i);
  check_flushes(self);
}

void on_written(writer_pointer self, const std::string& uid, uint64_t patch_no) {
  auto i = self->state.requests.find(uid);
  if (i == self->state.requests.end())
    return;
  auto& e = *i->second;
  e.in_flight = false;
  e.acknowledged = std::max(e.acknowledged, patch_no);
  e.unsent.clear();
  e.retry_delay = duration{0};
  e.retry_at = timestamp{};
  count_patch("written");
  resolve_waiting(e, true);
  if (e.coalescer.final_written() && e.waiting.empty() && !e.coalescer.dirty()) {
    self->state.requests.erase(i);
    return check_flushes(self);
  }
  write(self, uid, self->state.flushing);
  check_flushes(self);
}

void event_rejection(writer_pointer self, const request_entry& e, const std::string& message) {
  auto& events = self->state.options.events;
  if (!events)
    return;
  object_reference ref;
  ref.api_version = "stork.libopenstorage.org/v1alpha1";
  ref.kind = "SchedulingOptimization";
  ref.name = e.name;
  ref.uid = e.uid;
  self->send(events, event_record{ref, "Warning", "StatusWriteRejected",
                                  "status patch rejected by the API server: " + message});
}

void on_failed(writer_pointer self, const std::string& uid, std::string patch,
               const caf::error& err) {
  auto i = self->state.requests.find(uid);
  if (i == self->state.requests.end())
    return;
  auto& e = *i->second;
  e.in_flight = false;
  auto message = error_message(err);
  auto http_status = error_http_status(err);
  auto kind = classify_patch_failure(error_code(err), http_status, message);
  if (kind == patch_failure::too_large) {
    if (e.coalescer.shrink_details()) {
      // The failed patch is superseded: the coalescer holds everything it carried.
      count_patch("shrunk");
      std::size_t kept = 0;
      for (const auto& [kind, block] : e.coalescer.current().kinds)
        kept += block.details.size();
      spdlog::warn("status patch for request {} (uid {}) is too large for the API server ({}); "
                   "re-sending with details cut to {}",
                   e.name, uid, message, kept);
      e.unsent.clear();
      return write(self, uid, true);
    }
    kind = patch_failure::rejected; // nothing left to cut: it cannot be made to fit
  }
  switch (kind) {
    case patch_failure::gone:
      // 404, or 422: the uid test failed, the name now holds another object.
      count_patch("gone");
      spdlog::info("request {} (uid {}) is gone ({}: {}); status writes for it stop", e.name, uid,
                   http_status == 404 ? "not found" : "the name now holds another object",
                   message);
      return stop_writing(self, uid);
    case patch_failure::rejected:
      count_patch("rejected");
      spdlog::error("status patch for request {} (uid {}) rejected (HTTP {}): {}; not retried, "
                    "status writes for it stop",
                    e.name, uid, http_status, message);
      event_rejection(self, e, message);
      return stop_writing(self, uid);
    default:
      break;
  }
  auto& opts = self->state.options;
  e.retry_delay = e.retry_delay == duration{0} ? opts.retry_initial
                                               : std::min(e.retry_delay * 2, opts.retry_max);
  e.retry_at = actor_now(self) + std::chrono::duration_cast<timestamp::duration>(e.retry_delay);
  count_patch("retried");
  spdlog::warn("status patch for request {} (uid {}) failed ({}); retrying in {} ms", e.name, uid,
               message, std::chrono::duration_cast<std::chrono::milliseconds>(e.retry_delay).count());
  e.unsent = std::move(patch);
}

void write(writer_pointer self, const std::string& uid, bool force) {
  auto i = self->state.requests.find(uid);
  if (i == self->state.requests.end())
    return;
  auto& e = *i->second;
  auto now = actor_now(self);
  // Backing off gates every write of this request, urgent ones too: the newest status
  // goes out with the retry.
  if (e.in_flight || now < e.retry_at)
    return;
  std::string patch;
  uint64_t patch_no = e.taken;
  if (e.coalescer.due(now) || (force && e.coalescer.dirty())) {
    patch = e.coalescer.take_patch(now, e.uid);
    patch_no = ++e.taken;
  } else if (!e.unsent.empty()) {
    patch = e.unsent;
  } else {
    return;
  }
  if (self->state.options.dry_run) {
    spdlog::debug("dry run: status patch for {}: {}", e.name, patch);
    e.acknowledged = patch_no;
    resolve_waiting(e, true);
    return;
  }
  e.in_flight = true;
  k8s::patch_request req{k8s::resources::scheduling_optimizations, "", e.name, patch, true, true};
  self->request(self->state.api, caf::infinite, std::move(req))
    .then([=](const k8s::api_response&) { on_written(self, uid, patch_no); },
          [=](caf::error& err) { on_failed(self, uid, patch, err); });
}

/// The entry of an opened request whose writes have not stopped; nullptr otherwise, so a
/// late update cannot recreate it (and an update for an unknown uid has no name to use).
request_entry* open_entry(writer_pointer self, const std::string& uid, const char* what) {
  auto& st = self->state;
  auto i = st.requests.find(uid);
  if (i == st.requests.end()) {
    spdlog::debug("status writer: {} for request uid {} dropped (not open: never opened, or writes stopped)",
                  what, uid);
    return nullptr;
  }
  return i->second.get();
}

caf::result<bool> wait_for_write(writer_pointer self, request_entry& e) {
  // With nothing new to write (e.g. a resumed run re-entering its recorded stage) the
  // caller waits only for patches already taken, not for the next heartbeat.
  uint64_t needs = e.coalescer.dirty() ? e.taken + 1 : e.taken;
  if (needs <= e.acknowledged)
    return true;
  auto promise = self->make_response_promise<bool>();
  e.waiting.push_back({promise, needs});
  write(self, e.uid, true);
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

std::vector<std::string> uids_of(writer_pointer self) {
  std::vector<std::string> uids;
  for (auto& [uid, e] : self->state.requests)
    uids.push_back(uid);
  return uids;
}

status_writer_actor::behavior_type status_writer(writer_pointer self, api_client_actor api,
                                                 status_writer_options options) {
  auto& m = k8s::default_metrics();
  m.describe_counter("schedopt_status_patches_total",
                     "Status patches by result (written, retried, shrunk, rejected, gone).");
  m.describe_counter("schedopt_status_updates_total", "Status updates received by the status writer.");
  m.describe_counter("schedopt_status_updates_coalesced_total",
                     "Status updates folded into an already pending patch (no API call of their own).");
  self->state.api = std::move(api);
  self->state.options = options;
  self->delayed_send(self, to_clock(options.tick_interval), atom::tick_v);
  return {
    [=](atom::open, const scheduling_optimization& so) -> scheduling_optimization_status {
      auto& st = self->state;
      const auto& uid = so.metadata.uid;
      auto& slot = st.requests[uid];
      if (!slot)
        slot = std::make_unique<request_entry>(st.options, uid, so.metadata.name);
      slot->name = so.metadata.name;
      if (so.status.stage != request_stage::none)
        slot->coalescer.restore(so.status, actor_now(self));
      slot->coalescer.set_observed_generation(so.metadata.generation);
      return slot->coalescer.current();
    },
    [=](const stage_change& c) -> caf::result<bool> {
      auto* e = open_entry(self, c.request, "stage change");
      if (!e)
        return false;
      count_update(e->coalescer.dirty());
      e->coalescer.set_observed_generation(c.observed_generation);
      e->coalescer.set_stage(c.stage, c.status, actor_now(self));
      return wait_for_write(self, *e);
    },
    [=](atom::reserve, const std::string& uid, const std::string& kind, int64_t slots) {
      if (auto* e = open_entry(self, uid, "detail reservation"))
        e->coalescer.reserve_details(kind, static_cast<std::size_t>(std::max<int64_t>(0, slots)));
    },
    [=](const detail_result& r) {
      auto* e = open_entry(self, r.request, "detail result");
      if (!e)
        return;
      count_update(e->coalescer.dirty());
      e->coalescer.add_result(r.kind, r.detail);
    },
    [=](const run_outcome& o) -> caf::result<bool> {
      auto* e = open_entry(self, o.request, "run outcome");
      if (!e)
        return false;
      count_update(e->coalescer.dirty());
      e->coalescer.finish(o.status, o.reason, actor_now(self));
      return wait_for_write(self, *e);
    },
    [=](atom::close, const std::string& uid) { stop_writing(self, uid); },
    [=](atom::flush) -> caf::result<bool> {
      auto& st = self->state;
      st.flushing = true;
      auto promise = self->make_response_promise<bool>();
      st.flushes.push_back(promise);
      // One attempt at once for every request, backing off or not; failures back off again.
      for (auto& [uid, e] : st.requests)
        e->retry_at = timestamp{};
      for (auto& uid : uids_of(self))
        write(self, uid, true);
      check_flushes(self);
      return promise;
    },
    [=](atom::tick) {
      for (auto& uid : uids_of(self))
        write(self, uid, self->state.flushing);
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
