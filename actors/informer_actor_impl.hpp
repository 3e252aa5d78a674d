// The informer's behaviour (actors/informer_actor.hpp) as templates, so whoever owns a
// watched type instantiates spawn_informer for it: actors/informer_actor.cpp for the
// core's types, a kind's own folder for the kind's. Include only where you instantiate
// (SCHEDOPT_INSTANTIATE_INFORMER): every other caller needs actors/informer_actor.hpp.
//
// A type T needs, where the macro is used: its decoders instantiated
// (model/decode_generic.hpp), k8s::resource_traits<T>, its CAF type IDs, and its
// keep_decision_fields overload declared (found by argument-dependent lookup; without
// it the informer would keep the whole object, store_fields.hpp's catch-all).
#pragma once

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <caf/actor_cast.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/informer_actor.hpp"
#include "actors/system_config.hpp"
#include "k8s/informer_store.hpp"
#include "k8s/metrics.hpp"
#include "k8s/resource_traits.hpp"
#include "k8s/watch_parser.hpp"
#include "model/decode.hpp"
#include "model/store_fields.hpp"

namespace schedopt {

namespace informer_impl {

template <class T>
struct informer_state {
  static inline const char* name = "informer";
  api_client_actor client;
  informer_options opts;
  k8s::resource res;
  k8s::informer_store<T> store;
  bool synced = false;
  bool started = false; // listed at least once, or listing (informer_options::on_demand)
  std::string last_rv;
  bool relist_next = true;  // what the next restart does: relist or watch
  bool restart_pending = false;
  uint64_t watch_id = 0;    // current watch (0 = none)
  uint64_t stale_below = 0; // chunks / closes of watches with smaller ids are ignored
  bool watching = false;
  k8s::watch_stream_parser parser;
  int failures = 0;
  std::mt19937_64 rng{std::random_device{}()};
  std::vector<informer_subscriber_actor<T>> all_subscribers;
  std::map<std::string, std::vector<informer_subscriber_actor<T>>> object_subscribers;
};

template <class T>
using informer_pointer = typename informer_actor<T>::template stateful_pointer<informer_state<T>>;

template <class T, class Message, class Self>
void notify(Self self, const std::string& key, const Message& msg) {
  auto& st = self->state;
  for (auto& sub : st.all_subscribers)
    self->send(sub, msg);
  if (auto i = st.object_subscribers.find(key); i != st.object_subscribers.end())
    for (auto& sub : i->second)
      self->send(sub, msg);
}

template <class T, class Self>
void schedule_restart(Self self, bool relist, bool immediately = false) {
  auto& st = self->state;
  st.relist_next = st.relist_next || relist;
  if (st.restart_pending)
    return;
  st.restart_pending = true;
  std::chrono::milliseconds delay{0};
  if (!immediately) {
    ++st.failures;
    auto shift = std::min(st.failures - 1, 16);
    auto d = std::min<int64_t>(st.opts.max_backoff.count(),
                               st.opts.initial_backoff.count() << std::max(0, shift));
    std::uniform_int_distribution<int64_t> dist{d / 2, std::max<int64_t>(d / 2, d)};
    delay = std::chrono::milliseconds{dist(st.rng)};
  }
  if (delay.count() == 0)
    self->send(self, atom::restart_v);
  else
    self->delayed_send(self, delay, atom::restart_v);
}

template <class T, class Self>
void stop_watch(Self self) {
  auto& st = self->state;
  if (st.watch_id != 0) {
    self->send(st.client, atom::cancel_v, st.watch_id);
    st.stale_below = std::max(st.stale_below, st.watch_id + 1);
  }
  st.watch_id = 0;
  st.watching = false;
  st.parser.reset();
}

template <class T, class Self>
void start_watch(Self self);

// An object that does not decode is skipped, said and counted rather than failing the
// list or the watch: otherwise one bad object relists or rewatches forever and the
// informer never sees the thousands of good ones (docs/design.md "Data path").
template <class T, class Self>
void skip_undecodable(Self self, const char* where, const undecodable_object& bad) {
  auto& st = self->state;
  auto who = bad.name.empty() ? std::string{"(name unreadable)"}
             : bad.namespace_.empty() ? bad.name
                                      : bad.namespace_ + "/" + bad.name;
  spdlog::warn("informer {}: skipping undecodable {} {}: {}", st.res.plural, where, who,
               bad.why.message);
  k8s::default_metrics().counter_add("schedopt_decode_errors_total",
                                     {{"resource", st.res.plural}});
}

// The store takes a full list; the diff against the old one becomes notifications.
template <class T, class Self>
void list_complete(Self self, std::vector<std::shared_ptr<const T>> items,
                   const std::string& resource_version) {
  auto& st = self->state;
  auto interested = [&st](const std::string& key) {
    return !st.all_subscribers.empty() || st.object_subscribers.count(key) > 0;
  };
  auto diff = st.store.replace(std::move(items), interested);
  for (auto& obj : diff.deleted)
    notify<T>(self, k8s::store_key(obj), object_deleted<T>{obj});
  for (auto& [old_obj, obj] : diff.updated)
    notify<T>(self, k8s::store_key(obj), object_updated<T>{old_obj, obj});
  for (auto& obj : diff.added)
    notify<T>(self, k8s::store_key(obj), object_added<T>{obj});
  st.last_rv = resource_version;
  st.failures = 0;
  st.relist_next = false;
  spdlog::debug("informer {}: listed {} objects at resourceVersion {}", st.res.plural,
                st.store.size(), st.last_rv);
  if (!st.synced) {
    st.synced = true;
    informer_synced<T> msg{st.last_rv};
    for (auto& sub : st.all_subscribers)
      self->send(sub, msg);
    for (auto& [key, subs] : st.object_subscribers)
      for (auto& sub : subs)
        self->send(sub, msg);
  }
  start_watch<T>(self);
}

// One page of a list: decoded as soon as it arrives, so only one page of raw JSON is
// held at a time (a list of many VMIs is tens of MB of JSON, its decoded items far less).
// `items` accumulates the decoded pages; the first page's resourceVersion is the list's.
// `unpaged`: the whole list in one answer, the fallback after a continue token expired.
template <class T, class Self>
void list_page(Self self, std::shared_ptr<std::vector<std::shared_ptr<const T>>> items,
               std::string continue_token, std::string resource_version, bool unpaged = false) {
  auto& st = self->state;
  k8s::list_request req;
  req.res = st.res;
  req.namespace_ = st.opts.namespace_;
  req.label_selector = st.opts.label_selector;
  req.limit = unpaged ? 0 : st.opts.page_size;
  req.continue_token = continue_token;
  req.all_pages = false;
  self->request(st.client, caf::infinite, req)
    .then(
      [=](k8s::list_response& answer) mutable {
        auto& st = self->state;
        auto list = answer.pages.size() == 1
                      ? decode_list<T>(answer.pages.front())
                      : expected<object_list<T>>{make_error(ec::parse_error, "the list answer has no page")};
        if (!list) {
          st.watching = false;
          spdlog::error("informer {}: cannot decode list: {}", st.res.plural, list.err().message);
          schedule_restart<T>(self, true);
          return;
        }
        if (resource_version.empty())
          resource_version = answer.resource_version;
        // Sized once from the server's count of what is left: grown by doubling, the
        // list of a big kind reserved up to twice what it held, and held both copies
        // while it grew. The count is believed up to a bound, so a wrong one costs at
        // most that much.
        constexpr int64_t believed = int64_t{1} << 22;
        if (auto left = list->remaining_item_count; left && *left > 0 && items->empty())
          items->reserve(list->items.size() + static_cast<std::size_t>(std::min(*left, believed)));
        for (auto& item : list->items) {
          keep_decision_fields(item, st.opts.kept);
          if (st.opts.kept.only_worth_keeping && !worth_keeping(item))
            continue;
          items->push_back(std::make_shared<const T>(std::move(item)));
        }
        list->items = {};
        for (auto& bad : list->skipped) {
          skip_undecodable<T>(self, "list item", bad);
          // Keep the last good version: a relist must not report a live object deleted
          // just because its new version does not decode.
          if (!bad.name.empty())
            if (auto old = st.store.find_shared(k8s::store_key(bad.namespace_, bad.name)))
              items->push_back(std::move(old));
        }
        if (!list->continue_token.empty()) {
          list_page<T>(self, items, list->continue_token, resource_version);
          return;
        }
        st.watching = false;
        list_complete<T>(self, std::move(*items), resource_version);
      },
      [=](caf::error& err) {
        auto& st = self->state;
        if (error_code(err) == ec::gone && !continue_token.empty()) {
          // The API server compacted past the list's revision between pages: a paged
          // relist of a big type could expire the same way for ever, so the rest comes as
          // one unpaged list, replacing the pages read so far. Follows client-go v0.36.3
          // tools/pager/pager.go, ListPager.list (FullListIfExpired).
          spdlog::info("informer {}: list continue token expired; listing again without paging",
                       st.res.plural);
          k8s::default_metrics().counter_add("schedopt_informer_list_expired_total",
                                             {{"resource", st.res.plural}});
          list_page<T>(self, std::make_shared<std::vector<std::shared_ptr<const T>>>(),
                       std::string{}, std::string{}, true);
          return;
        }
        st.watching = false;
        spdlog::warn("informer {}: list failed: {}", st.res.plural, error_message(err));
        schedule_restart<T>(self, true);
      });
}

template <class T, class Self>
void relist(Self self) {
  auto& st = self->state;
  stop_watch<T>(self);
  k8s::default_metrics().counter_add("schedopt_informer_relists_total",
                                     {{"resource", st.res.plural}});
  st.watching = true; // blocks other restarts until the list ends
  list_page<T>(self, std::make_shared<std::vector<std::shared_ptr<const T>>>(), std::string{},
               std::string{});
}

template <class T, class Self>
void start_watch(Self self) {
  auto& st = self->state;
  stop_watch<T>(self);
  k8s::watch_request req;
  req.res = st.res;
  req.namespace_ = st.opts.namespace_;
  req.label_selector = st.opts.label_selector;
  req.resource_version = st.last_rv;
  req.timeout_seconds = st.opts.watch_timeout_seconds;
  req.allow_bookmarks = true;
  st.watching = true;
  self->request(st.client, caf::infinite, req, watch_sink_actor{self})
    .then(
      [=](uint64_t id) {
        auto& st = self->state;
        if (id < st.stale_below) // superseded meanwhile
          return;
        st.watch_id = id;
      },
      [=](caf::error& err) {
        auto& st = self->state;
        st.watching = false;
        spdlog::warn("informer {}: watch request failed: {}", st.res.plural, error_message(err));
        schedule_restart<T>(self, error_code(err) == ec::gone);
      });
}

// Stores an object from the watch or from this controller's own write (atom::observed).
// An own write's answer can overtake the watch events before it: those older versions
// of the same object are not stored over it. So an own write is stored even when not
// worth keeping (only_worth_keeping): it is what holds those older events back, until
// the watch brings its own version and drops it.
template <class T, class Self>
void store_object(Self self, T obj, bool own_write = false) {
  auto& st = self->state;
  auto key = k8s::store_key(obj);
  if (auto* held = st.store.find(key); held && uid_of(held->metadata) == uid_of(obj.metadata)
                                       && k8s::older_version(obj.metadata.resource_version,
                                                             held->metadata.resource_version))
    return;
  if (st.opts.kept.only_worth_keeping && !own_write && !worth_keeping(obj)) {
    if (auto old = st.store.erase(key))
      notify<T>(self, key, object_deleted<T>{*old});
    return;
  }
  auto old = st.store.upsert(obj);
  if (!old)
    notify<T>(self, key, object_added<T>{std::move(obj)});
  else if (old->metadata.resource_version != obj.metadata.resource_version)
    notify<T>(self, key, object_updated<T>{*old, std::move(obj)});
}

template <class T, class Self>
void handle_line(Self self, std::string_view line, bool& restart,
                 bool& relist_needed) {
  auto& st = self->state;
  auto ev = decode_watch_event<T>(line);
  if (!ev) {
    // Restarting at the same resourceVersion would replay the same event forever: skip
    // it and keep watching, resuming after it if its version reads.
    auto bad = identify_watch_event(line, ev.err());
    skip_undecodable<T>(self, "watch event", bad);
    if (!bad.resource_version.empty())
      st.last_rv = bad.resource_version;
    // A deletion needs no decoded object: the key is enough not to keep a ghost.
    if (bad.type == "DELETED" && !bad.name.empty()) {
      auto key = k8s::store_key(bad.namespace_, bad.name);
      if (auto old = st.store.erase(key))
        notify<T>(self, key, object_deleted<T>{*old});
    }
    return;
  }
  if (ev->type == "ERROR") {
    if (ev->status.code == 410) {
      spdlog::info("informer {}: resourceVersion {} expired; relisting", st.res.plural,
                   st.last_rv);
      relist_needed = true;
    } else {
      spdlog::warn("informer {}: watch error {}: {}", st.res.plural, ev->status.code,
                   ev->status.message);
      restart = true;
    }
    return;
  }
  if (!ev->resource_version.empty())
    st.last_rv = ev->resource_version;
  if (ev->type == "BOOKMARK")
    return;
  keep_decision_fields(ev->object, st.opts.kept);
  auto key = k8s::store_key(ev->object);
  if (ev->type == "DELETED") {
    auto old = st.store.erase(key);
    notify<T>(self, key, object_deleted<T>{old ? *old : ev->object});
    return;
  }
  store_object<T>(self, std::move(ev->object));
}

/// Lists for the first time: at spawn, or when first asked (informer_options::on_demand).
template <class T, class Self>
void ensure_started(Self self) {
  auto& st = self->state;
  if (st.started)
    return;
  st.started = true;
  if (st.opts.on_demand)
    spdlog::info("informer {}: first asked for; listing", st.res.plural);
  relist<T>(self);
}

template <class T, class Self>
void remove_subscriber(Self self, const caf::actor_addr& who) {
  auto& st = self->state;
  auto gone = [&](const informer_subscriber_actor<T>& s) { return s.address() == who; };
  auto& all = st.all_subscribers;
  all.erase(std::remove_if(all.begin(), all.end(), gone), all.end());
  for (auto i = st.object_subscribers.begin(); i != st.object_subscribers.end();) {
    auto& v = i->second;
    v.erase(std::remove_if(v.begin(), v.end(), gone), v.end());
    i = v.empty() ? st.object_subscribers.erase(i) : std::next(i);
  }
}

template <class T>
typename informer_actor<T>::behavior_type informer(informer_pointer<T> self,
                                                    api_client_actor client,
                                                    informer_options opts) {
  auto& st = self->state;
  st.client = std::move(client);
  st.opts = std::move(opts);
  st.res = k8s::resource_traits<T>::resource();
  auto& m = k8s::default_metrics();
  m.describe_counter("schedopt_informer_relists_total", "Informer full lists (start and 410).");
  m.describe_counter("schedopt_informer_list_expired_total",
                     "Paged lists whose continue token expired (410), finished unpaged.");
  m.describe_counter("schedopt_watch_restarts_total", "Watch streams restarted (drops, timeouts).");
  m.describe_counter("schedopt_decode_errors_total",
                     "Objects skipped by informers because they did not decode (list items, watch events).");
  self->set_down_handler([=](const caf::down_msg& msg) { remove_subscriber<T>(self, msg.source); });
  if (!st.opts.on_demand)
    ensure_started<T>(self);
  return {
    [=](atom::subscribe, informer_subscriber_actor<T> sub) {
      ensure_started<T>(self);
      auto& st = self->state;
      self->monitor(sub);
      st.all_subscribers.push_back(sub);
      for (auto& obj : st.store.objects())
        self->send(sub, object_added<T>{*obj});
      if (st.synced)
        self->send(sub, informer_synced<T>{st.last_rv});
    },
    [=](atom::subscribe, informer_subscriber_actor<T> sub, const std::string& ns,
        const std::string& name) {
      ensure_started<T>(self);
      auto& st = self->state;
      self->monitor(sub);
      auto key = k8s::store_key(ns, name);
      st.object_subscribers[key].push_back(sub);
      if (auto* obj = st.store.find(key))
        self->send(sub, object_added<T>{*obj});
      if (st.synced)
        self->send(sub, informer_synced<T>{st.last_rv});
    },
    [=](atom::unsubscribe, informer_subscriber_actor<T> sub) {
      self->demonitor(sub.address());
      remove_subscriber<T>(self, sub.address());
    },
    [=](atom::synced) {
      ensure_started<T>(self);
      return self->state.synced;
    },
    [=](atom::snapshot) {
      ensure_started<T>(self);
      return self->state.store.snapshot();
    },
    [=](atom::observed, T& obj) {
      keep_decision_fields(obj, self->state.opts.kept);
      store_object<T>(self, std::move(obj), true);
    },
    [=](watch_chunk& chunk) {
      auto& st = self->state;
      if (chunk.watch_id < st.stale_below)
        return;
      if (st.watch_id == 0)
        st.watch_id = chunk.watch_id; // chunks may overtake the request's reply
      else if (chunk.watch_id != st.watch_id)
        return;
      bool restart = false;
      bool relist_needed = false;
      auto fed = st.parser.feed_lines(chunk.data, [&](std::string_view line) {
        if (!restart && !relist_needed)
          handle_line<T>(self, line, restart, relist_needed);
      });
      if (!fed) {
        spdlog::error("informer {}: {}", st.res.plural, fed.err().message);
        restart = true;
      }
      if (relist_needed || restart) {
        stop_watch<T>(self);
        k8s::default_metrics().counter_add("schedopt_watch_restarts_total",
                                           {{"resource", st.res.plural}});
        schedule_restart<T>(self, relist_needed, relist_needed);
      } else if (fed && *fed > 0) {
        st.failures = 0;
      }
    },
    [=](watch_closed& closed) {
      auto& st = self->state;
      if (closed.watch_id < st.stale_below)
        return;
      if (st.watch_id != 0 && closed.watch_id != st.watch_id)
        return;
      st.stale_below = closed.watch_id + 1;
      st.watch_id = 0;
      st.watching = false;
      st.parser.reset();
      k8s::default_metrics().counter_add("schedopt_watch_restarts_total",
                                         {{"resource", st.res.plural}});
      auto code = error_code(closed.error);
      if (!closed.error) {
        schedule_restart<T>(self, false, true); // server timeout: resume at once
      } else if (code == ec::gone) {
        spdlog::info("informer {}: watch 410 Gone; relisting", st.res.plural);
        schedule_restart<T>(self, true, true);
      } else {
        spdlog::debug("informer {}: watch closed: {}", st.res.plural, error_message(closed.error));
        schedule_restart<T>(self, false);
      }
    },
    [=](atom::restart) {
      auto& st = self->state;
      st.restart_pending = false;
      if (st.relist_next || st.last_rv.empty())
        relist<T>(self);
      else
        start_watch<T>(self);
    },
  };
}

} // namespace informer_impl

template <class T>
informer_actor<T> spawn_informer(caf::actor_system& sys, api_client_actor client,
                                 informer_options options) {
  return sys.spawn(informer_impl::informer<T>, std::move(client), std::move(options));
}

} // namespace schedopt

/// Instantiates spawn_informer for `type` (fully qualified; used at global scope).
#define SCHEDOPT_INSTANTIATE_INFORMER(type)                                              \
  template schedopt::informer_actor<type> schedopt::spawn_informer<type>(              \
    caf::actor_system&, schedopt::api_client_actor, schedopt::informer_options);
