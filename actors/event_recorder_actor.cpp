// Event recorder: spam filter per object (token bucket), aggregation of identical events
// into count/lastTimestamp patches, one write at a time, bounded queue. Every write is one
// the API client may safely send twice: a create has a fixed name (409 on a replay) and a
// count bump tests the count it raises (422 on a replay).
#include "actors/event_recorder_actor.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <random>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "actors/system_config.hpp"
#include "model/lru_map.hpp"
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
  // Both follow client-go v0.36.3 tools/record/events_cache.go (maxLruCacheEntries):
  // only the most recently used 4096 are kept, so a controller that serves requests
  // for a year does not keep a record of every Event it ever wrote.
  lru_map<std::string, k8s::token_bucket> spam_filter{4096}; // per involved object
  lru_map<std::string, recorded_event> recorded{4096};       // per object+type+reason+message
  std::deque<event_record> queue;
  bool busy = false;
  std::vector<caf::typed_response_promise<bool>> flushers;
  std::mt19937_64 rng{std::random_device{}()};
  int64_t last_name_nanos = 0; // event names stay unique when the clock repeats itself
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

// IsDNS1123Subdomain of apimachinery's validation, which an Event name must pass.
bool is_dns_subdomain(const std::string& name) {
  if (name.empty() || name.size() > 253)
    return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool edge = i == 0 || i + 1 == name.size() || name[i - 1] == '.' || name[i + 1] == '.';
    if (!(alnum(c) || (!edge && (c == '-' || c == '.'))))
      return false;
  }
  return true;
}

std::string random_uuid(std::mt19937_64& rng) {
  char text[37];
  auto a = rng(), b = rng();
  std::snprintf(text, sizeof text, "%08llx-%04llx-4%03llx-%04llx-%012llx",
                static_cast<unsigned long long>(a >> 32),
                static_cast<unsigned long long>((a >> 16) & 0xffff),
                static_cast<unsigned long long>(a & 0xfff),
                static_cast<unsigned long long>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffull));
  return text;
}

// Follows client-go v0.36.3 tools/record/event.go, makeEvent, and tools/record/util,
// GenerateEventName: "<involved object name>.<UnixNano in hex>", a UUID when that is no
// valid name. The name is fixed before the first attempt, so a create replayed after a
// lost answer meets the Event it made (409 AlreadyExists) instead of making a second one.
std::string event_name(event_recorder_state& st, const std::string& involved,
                       std::chrono::system_clock::time_point at) {
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count();
  nanos = std::max(nanos, st.last_name_nanos + 1); // two events of one object never share it
  st.last_name_nanos = nanos;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(nanos));
  auto name = involved + "." + hex;
  return is_dns_subdomain(name) ? name : random_uuid(st.rng);
}

void create(recorder_pointer self, const event_record& rec, const std::string& key) {
  auto& st = self->state;
  auto at = std::chrono::system_clock::now();
  auto now = format_rfc3339(at);
  event e;
  e.metadata.name = event_name(st, rec.involved.name, at);
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
        self->state.recorded.put(key, recorded_event{e.metadata.name, e.metadata.namespace_, 1});
        done(self);
      },
      [=](caf::error& err) {
        // Follows client-go v0.36.3 tools/record/event.go, recordEvent: AlreadyExists
        // ends the write. The name is this recorder's own, so the Event is the one a lost
        // answer hid (count 1), and later repeats bump it.
        if (error_code(err) == ec::already_exists) {
          self->state.recorded.put(key, recorded_event{e.metadata.name, e.metadata.namespace_, 1});
          return done(self);
        }
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
  auto* found = st.recorded.find(key);
  if (!found) {
    create(self, rec, key);
    return;
  }
  auto prev = *found;
  // client-go sends {count, lastTimestamp} as a patch too; the leading test makes a replay
  // of a bump that was applied fail (422) instead of passing for a second repeat.
  nlohmann::json patch = nlohmann::json::array(
    {{{"op", "test"}, {"path", "/count"}, {"value", prev.count}},
     {{"op", "replace"}, {"path", "/count"}, {"value", prev.count + 1}},
     {{"op", "replace"}, {"path", "/lastTimestamp"},
      {"value", format_rfc3339(std::chrono::system_clock::now())}}});
  self->request(st.client, caf::infinite,
                k8s::patch_request{k8s::resources::events, prev.namespace_, prev.name,
                                   patch.dump(), false, true})
    .then(
      [=](k8s::api_response&) {
        self->state.recorded.put(key, recorded_event{prev.name, prev.namespace_, prev.count + 1});
        done(self);
      },
      [=](caf::error& err) {
        if (error_code(err) == ec::not_found) { // the Event expired (TTL): start over
          self->state.recorded.erase(key);
          create(self, rec, key);
          return;
        }
        // Only this recorder writes the Events it named: a count that is no longer
        // prev.count is the one this bump set, on an attempt whose answer was lost.
        if (error_http_status(err) == 422) {
          self->state.recorded.put(key, recorded_event{prev.name, prev.namespace_, prev.count + 1});
          return done(self);
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
      auto* bucket = st.spam_filter.find(okey);
      if (!bucket)
        bucket = &st.spam_filter.put(okey, k8s::token_bucket{st.opts.qps, st.opts.burst});
      if (!bucket->try_take(std::chrono::steady_clock::now())) {
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
    [=](atom::close, const object_reference& object) {
      auto& st = self->state;
      auto okey = object_key(object);
      st.spam_filter.erase(okey);
      auto prefix = okey + "\n";
      st.recorded.erase_if([&](const std::string& key) { return key.compare(0, prefix.size(), prefix) == 0; });
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
