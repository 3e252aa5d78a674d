// Deterministic actor-test fixture (CAF test_coordinator built by hand for Boost.Test)
// plus mock actors implementing schedopt's real typed interfaces: a recording API
// client, informers of T, a candidate, and a helper that asks an actor and keeps the reply.
#pragma once

#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/exit_reason.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/actors.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_actors.hpp"
#include "actors/system_config.hpp"

namespace schedopt::test {

// -- fixture ----------------------------------------------------------------------

struct actor_fixture {
  static caf::actor_system_config& prepare(caf::actor_system_config& cfg) {
    cfg.set("scheduler.policy", caf::atom("testing"));
    cfg.set("logger.file-verbosity", caf::atom("quiet"));
    register_schedopt_types(cfg);
    return cfg;
  }

  actor_fixture()
    : sys(prepare(cfg)), sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {
  }

  ~actor_fixture() {
    // Actors with self-scheduled timers (status writer ticks) never quit on their own.
    for (auto& a : spawned)
      caf::anon_send_exit(a, caf::exit_reason::kill);
    sched.run();
    sched.clock().cancel_all();
    sched.run();
    sys.await_actors_before_shutdown(false);
  }

  /// Remembers an actor to kill at teardown and hands it back.
  template <class Handle>
  Handle track(Handle h) {
    spawned.push_back(caf::actor_cast<caf::actor>(h));
    return h;
  }

  /// Moves the test clock forward in `step`s, running every job after each step, so
  /// periodic timers fire as often as they would in real time.
  void advance(caf::timespan total, caf::timespan step = std::chrono::milliseconds(100)) {
    sched.run();
    for (caf::timespan done{0}; done < total; done += step) {
      sched.advance_time(std::min(step, total - done));
      sched.run();
    }
  }

  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  std::vector<caf::actor> spawned;
};

// -- asking an actor -----------------------------------------------------------------

template <class Reply>
struct reply_slot {
  std::optional<Reply> value;
  std::optional<caf::error> error;
  bool arrived() const { return value.has_value() || error.has_value(); }
};

/// Sends `msg` as a request from a throwaway actor; the slot fills once the reply (or
/// error) arrives, i.e. after some sched.run().
template <class Reply, class Handle, class... Ts>
std::shared_ptr<reply_slot<Reply>> ask(caf::actor_system& sys, Handle target, Ts... msg) {
  auto slot = std::make_shared<reply_slot<Reply>>();
  sys.spawn([=](caf::event_based_actor* self) -> caf::behavior {
    self->request(target, caf::infinite, msg...)
      .then(
        [=](Reply& r) {
          slot->value = std::move(r);
          self->quit();
        },
        [=](caf::error& e) {
          slot->error = std::move(e);
          self->quit();
        });
    return {[](int) {}};
  });
  return slot;
}

// -- mock API client -------------------------------------------------------------------

/// One request the mock API received.
struct api_call {
  std::string verb; // get, list, create, patch, update, delete, watch
  k8s::resource res;
  std::string namespace_;
  std::string name;
  std::string body;
  bool status = false; // patch/update on /status
  bool json_patch = false;      // patch: application/json-patch+json
  std::string precondition_uid{}; // delete: DeleteOptions preconditions.uid
  std::string field_selector{};   // list
};

using api_answer = caf::expected<k8s::api_response>;

/// What the mock API knows: every call, scripted answers, held replies.
struct api_log {
  std::vector<api_call> calls;
  /// Answers consumed in order before `respond` is asked.
  std::deque<api_answer> scripted;
  /// Default answer; 200 "{}" when unset.
  std::function<api_answer(const api_call&)> respond;
  /// Answer to a list; an empty list when unset.
  std::function<k8s::list_response(const k8s::list_request&)> list_answer;
  /// While true, replies wait in `held` until release() .
  bool hold = false;
  std::vector<std::pair<caf::typed_response_promise<k8s::api_response>, api_answer>> held;

  std::vector<api_call> calls_of(const std::string& verb) const {
    std::vector<api_call> out;
    for (auto& c : calls)
      if (c.verb == verb)
        out.push_back(c);
    return out;
  }

  /// The mock actor; release() asks it to deliver, since a response promise must be
  /// fulfilled from inside its actor.
  caf::actor_addr mock; // weak: the log must not keep the mock alive

  /// Delivers every held reply (run the scheduler afterwards).
  void release() {
    if (auto handle = caf::actor_cast<api_client_actor>(mock))
      caf::anon_send(handle, atom::tick_v);
  }

  /// Called by the mock on atom::tick.
  void deliver_held() {
    auto pending = std::move(held);
    held.clear();
    for (auto& [promise, answer] : pending) {
      if (answer)
        promise.deliver(*answer);
      else
        promise.deliver(answer.error());
    }
  }

  api_answer answer_for(const api_call& c) {
    if (!scripted.empty()) {
      auto a = std::move(scripted.front());
      scripted.pop_front();
      return a;
    }
    if (respond)
      return respond(c);
    return k8s::api_response{200, "{}"};
  }
};

inline api_client_actor spawn_mock_api(caf::actor_system& sys, std::shared_ptr<api_log> log) {
  return sys.spawn([log](api_client_actor::pointer self) -> api_client_actor::behavior_type {
    log->mock = self->address();
    auto answer = [=](api_call c) -> caf::result<k8s::api_response> {
      log->calls.push_back(c);
      auto a = log->answer_for(log->calls.back());
      if (log->hold) {
        auto promise = self->make_response_promise<k8s::api_response>();
        log->held.emplace_back(promise, std::move(a));
        return promise;
      }
      if (a)
        return *a;
      return a.error();
    };
    return {
      [=](const k8s::get_request& r) {
        return answer({"get", r.res, r.namespace_, r.name, "", false});
      },
      [=](const k8s::list_request& r) -> caf::result<k8s::list_response> {
        log->calls.push_back({"list", r.res, r.namespace_, "", "", false, false, "", r.field_selector});
        return log->list_answer ? log->list_answer(r) : k8s::list_response{};
      },
      [=](const k8s::create_request& r) {
        return answer({"create", r.res, r.namespace_, "", r.body, false});
      },
      [=](const k8s::patch_request& r) {
        return answer({"patch", r.res, r.namespace_, r.name, r.body, r.status, r.json_patch});
      },
      [=](const k8s::update_request& r) {
        return answer({"update", r.res, r.namespace_, r.name, r.body, r.status});
      },
      [=](const k8s::delete_request& r) {
        return answer({"delete", r.res, r.namespace_, r.name, "", false, false, r.uid});
      },
      [=](const k8s::watch_request& r, const watch_sink_actor&) -> uint64_t {
        log->calls.push_back({"watch", r.res, r.namespace_, "", "", false});
        return 1;
      },
      [=](atom::cancel, uint64_t) {},
      [=](const http_completion&) {},
      [=](atom::tick) { log->deliver_held(); },
    };
  });
}

/// An API error as the real client reports it.
inline caf::error api_error(ec code, int http_status, std::string message) {
  return to_caf_error(schedopt::error{code, std::move(message), http_status});
}

// -- mock informer ----------------------------------------------------------------------

template <class T>
struct informer_log {
  struct subscription {
    informer_subscriber_actor<T> who;
    std::optional<std::pair<std::string, std::string>> object; // ns/name, or every object
  };
  std::vector<T> objects;
  std::vector<T> observed; // own writes fed back (atom::observed)
  bool synced = true;
  std::vector<subscription> subscribers;
  int unsubscribes = 0;

  static bool matches(const subscription& s, const T& x) {
    return !s.object
           || (s.object->first == x.metadata.namespace_ && s.object->second == x.metadata.name);
  }
  /// Pushes a notification to every subscriber interested in `x` (run the scheduler).
  void push_added(const T& x) {
    for (auto& s : subscribers)
      if (matches(s, x))
        caf::anon_send(s.who, object_added<T>{x});
  }
  void push_updated(const T& old_x, const T& x) {
    for (auto& s : subscribers)
      if (matches(s, x))
        caf::anon_send(s.who, object_updated<T>{old_x, x});
  }
  void push_deleted(const T& x) {
    for (auto& s : subscribers)
      if (matches(s, x))
        caf::anon_send(s.who, object_deleted<T>{x});
  }
};

template <class T>
informer_actor<T> spawn_mock_informer(caf::actor_system& sys, std::shared_ptr<informer_log<T>> log) {
  using sub_t = informer_subscriber_actor<T>;
  return sys.spawn([log](typename informer_actor<T>::pointer self) ->
                   typename informer_actor<T>::behavior_type {
    auto replay = [=](const typename informer_log<T>::subscription& s) {
      for (auto& x : log->objects)
        if (informer_log<T>::matches(s, x))
          self->send(s.who, object_added<T>{x});
      if (log->synced)
        self->send(s.who, informer_synced<T>{"1"});
    };
    return {
      [=](atom::subscribe, sub_t who) {
        log->subscribers.push_back({who, std::nullopt});
        replay(log->subscribers.back());
      },
      [=](atom::subscribe, sub_t who, std::string ns, std::string name) {
        log->subscribers.push_back({who, std::make_pair(ns, name)});
        replay(log->subscribers.back());
      },
      [=](atom::unsubscribe, sub_t who) {
        ++log->unsubscribes;
        auto& s = log->subscribers;
        s.erase(std::remove_if(s.begin(), s.end(), [&](auto& x) { return x.who == who; }),
                s.end());
      },
      [=](atom::synced) { return log->synced; },
      [=](atom::snapshot) { return share_all(log->objects); },
      [=](atom::observed, T& x) { log->observed.push_back(std::move(x)); },
      [=](const watch_chunk&) {},
      [=](const watch_closed&) {},
      [=](atom::restart) {},
    };
  });
}

// -- mock candidate -------------------------------------------------------------------

struct candidate_log {
  std::vector<migration_result> results;
};

inline candidate_actor spawn_mock_candidate(caf::actor_system& sys,
                                            std::shared_ptr<candidate_log> log) {
  return sys.spawn([log](candidate_actor::pointer) -> candidate_actor::behavior_type {
    return {
      [=](const migration_result& r) { log->results.push_back(r); },
    };
  });
}

// -- mock status writer and event recorder ----------------------------------------------

/// What the mock status writer heard. `hold_open` uids: their atom::open is never
/// answered, so a request actor stays mid-run until the test decides otherwise.
struct writer_log {
  std::vector<scheduling_optimization> opens;
  std::vector<detail_result> results;
  std::vector<stage_change> stages;
  std::vector<run_outcome> outcomes;
  std::vector<std::string> closes;
  std::vector<std::pair<std::string, int64_t>> reserved;
  std::vector<std::string> hold_open;
  std::vector<caf::typed_response_promise<scheduling_optimization_status>> held;
};

inline status_writer_actor spawn_mock_status_writer(caf::actor_system& sys,
                                                    std::shared_ptr<writer_log> log) {
  return sys.spawn([log](status_writer_actor::pointer self) -> status_writer_actor::behavior_type {
    return {
      [=](atom::open, const scheduling_optimization& so)
        -> caf::result<scheduling_optimization_status> {
        log->opens.push_back(so);
        auto& h = log->hold_open;
        if (std::find(h.begin(), h.end(), so.metadata.uid) != h.end()) {
          log->held.push_back(self->make_response_promise<scheduling_optimization_status>());
          return log->held.back();
        }
        return so.status;
      },
      [=](const stage_change& c) {
        log->stages.push_back(c);
        return true;
      },
      [=](atom::reserve, const std::string& uid, const std::string&, int64_t n) {
        log->reserved.emplace_back(uid, n);
      },
      [=](const detail_result& r) { log->results.push_back(r); },
      [=](const run_outcome& o) {
        log->outcomes.push_back(o);
        return true;
      },
      [=](atom::close, const std::string& uid) { log->closes.push_back(uid); },
      [=](atom::flush) { return true; },
      [=](atom::tick) {},
    };
  });
}

/// Records every event, and (when `closed` is given) every object it is told to forget.
inline event_recorder_actor
spawn_mock_event_recorder(caf::actor_system& sys, std::shared_ptr<std::vector<event_record>> log,
                          std::shared_ptr<std::vector<object_reference>> closed = nullptr) {
  return sys.spawn([log, closed](event_recorder_actor::pointer) -> event_recorder_actor::behavior_type {
    return {
      [=](const event_record& e) { log->push_back(e); },
      [=](atom::close, const object_reference& object) {
        if (closed)
          closed->push_back(object);
      },
      [=](atom::flush) { return true; },
      [=](atom::tick) {},
    };
  });
}

} // namespace schedopt::test
