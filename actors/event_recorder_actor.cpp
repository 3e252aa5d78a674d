// Event recorder: spam filter per object (token bucket), aggregation of identical events
// into count/lastTimestamp patches, one write at a time, bounded queue.
#include "actors/event_recorder_actor.hpp"

#include <deque>
#include <map>
#include <random>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "actors/system_config.hpp"
#include "k8s/rate_limiter.hpp"
#include "model/decode.hpp"
#include "model/encode.hpp"
#include "model/timestamp.hpp"

namespace schedopt {

namespace {

struct recorded_event {
  std::string name;
  std::string namespace_;
  int64_t count = 0;
};

struct event_recorder_state {
  static inline const char* name = "event-recorder";
  api_client_actor client;
  event_recorder_options opts;
  std::map<std::string, k8s::token_bucket> spam_filter; // per involved object
  std::map<std::string, recorded_event> recorded;       // per object+type+reason+message
  std::deque<event_record> queue;
  bool busy = false;
  std::vector<caf::typed_response_promise<bool>> flushers;
  std::mt19937_64 rng{std::random_device{}()};
};

using recorder_pointer = event_recorder_actor::stateful_pointer<event_recorder_state>;

std::string object_key(const object_reference& r) {
  return r.kind + "/" + r.namespace_ + "/" + r.name + "/" + r.uid;
}

std::string aggregate_key(const event_record& e) {
  return object_key(e.involved) + "\n" + e.type + "\n" + e.reason + "\n" + e.message;
}

std::string event_namespace(const object_reference& r) {
  return r.namespace_.empty() ? "default" : r.namespace_;
}

void process(recorder_pointer self);

void done(recorder_pointer self) {
  auto& st = self->state;
  st.busy = false;
  if (st.queue.empty()) {
    for (auto& rp : st.flushers)
      rp.deliver(true);
    st.flushers.clear();
    return;
  }
  process(self);
}

void create(recorder_pointer self, const event_record& rec, const std::string& key) {
  auto& st = self->state;
  auto now = format_rfc3339(std::chrono::system_clock::now());
  event e;
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(st.rng()));
  e.metadata.name = rec.involved.name + "." + suffix;
  e.metadata.namespace_ = event_namespace(rec.involved);
  e.involved_object = rec.involved;
  e.type = rec.type;
  e.reason = rec.reason;
  e.message = rec.message;
  e.count = 1;
  e.first_timestamp = now;
  e.last_timestamp = now;
  e.source_component = st.opts.component;
  e.reporting_component = st.opts.component;
  auto body = to_json(e);
  if (!st.opts.host.empty())
    body["source"]["host"] = st.opts.host;
  body["eventTime"] = nullptr;
  self->request(st.client, caf::infinite,
                k8s::create_request{k8s::resources::events, e.metadata.namespace_, body.dump()})
    .then(
      [=](k8s::api_response&) {
        self->state.recorded[key] = recorded_event{e.metadata.name, e.metadata.namespace_, 1};
        done(self);
      },
      [=](caf::error& err) {
        spdlog::warn("event {} on {}/{} not recorded: {}", rec.reason, rec.involved.namespace_,
                     rec.involved.name, error_message(err));
        done(self);
      });
}

void process(recorder_pointer self) {
  auto& st = self->state;
  if (st.busy || st.queue.empty())
    return;
  st.busy = true;
  auto rec = std::move(st.queue.front());
  st.queue.pop_front();
  auto key = aggregate_key(rec);
  auto i = st.recorded.find(key);
  if (i == st.recorded.end()) {
    create(self, rec, key);
    return;
  }
  auto prev = i->second;
  nlohmann::json patch{{"count", prev.count + 1},
                       {"lastTimestamp", format_rfc3339(std::chrono::system_clock::now())}};
  self->request(st.client, caf::infinite,
                k8s::patch_request{k8s::resources::events, prev.namespace_, prev.name,
                                   patch.dump(), false, false})
    .then(
      [=](k8s::api_response&) {
        self->state.recorded[key].count = prev.count + 1;
        done(self);
      },
      [=](caf::error& err) {
        if (error_code(err) == ec::not_found) { // the Event expired (TTL): start over
          self->state.recorded.erase(key);
          create(self, rec, key);
          return;
        }
        spdlog::warn("event {} on {}/{} not updated: {}", rec.reason, rec.involved.namespace_,
                     rec.involved.name, error_message(err));
        done(self);
      });
}

event_recorder_actor::behavior_type event_recorder(recorder_pointer self,
                                                   api_client_actor client,
                                                   event_recorder_options opts) {
  self->state.client = std::move(client);
  self->state.opts = std::move(opts);
  return {
    [=](event_record& rec) {
      auto& st = self->state;
      auto okey = object_key(rec.involved);
      auto b = st.spam_filter.find(okey);
      if (b == st.spam_filter.end())
        b = st.spam_filter.emplace(okey, k8s::token_bucket{st.opts.qps, st.opts.burst}).first;
      if (!b->second.try_take(std::chrono::steady_clock::now())) {
        spdlog::debug("event {} on {} dropped by the spam filter", rec.reason, okey);
        return;
      }
      if (st.queue.size() >= st.opts.max_queued) {
        spdlog::warn("event {} on {} dropped: {} events queued", rec.reason, okey,
                     st.queue.size());
        return;
      }
      st.queue.push_back(std::move(rec));
      process(self);
    },
    [=](atom::flush) -> caf::result<bool> {
      auto& st = self->state;
      if (!st.busy && st.queue.empty())
        return true;
      auto rp = self->make_response_promise<bool>();
      st.flushers.push_back(rp);
      return rp;
    },
    [=](atom::tick) { process(self); },
  };
}

} // namespace

event_recorder_actor spawn_event_recorder(caf::actor_system& sys, api_client_actor client,
                                          event_recorder_options options) {
  return sys.spawn(event_recorder, std::move(client), std::move(options));
}

} // namespace schedopt
