// The API client actor: queue -> token bucket -> HTTP engine -> retries -> reply.
#include "actors/api_client_actor.hpp"

#include <atomic>

#include <deque>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include <caf/actor_cast.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>
#include <spdlog/spdlog.h>

#include "actors/system_config.hpp"
#include "k8s/api_errors.hpp"
#include "k8s/backoff.hpp"
#include "k8s/exec_credential.hpp"
#include "k8s/http_engine.hpp"
#include "k8s/metrics.hpp"
#include "k8s/paths.hpp"
#include "k8s/rate_limiter.hpp"
#include "k8s/requests.hpp"
#include "k8s/retry_policy.hpp"

namespace schedopt {

namespace {

std::atomic<std::chrono::steady_clock::rep> last_answer_ticks{0};

void note_api_answer() {
  last_answer_ticks = std::chrono::steady_clock::now().time_since_epoch().count();
}


using clock_type = std::chrono::steady_clock;

// The credentials one request went out with.
struct request_auth {
  std::string token;
  std::string client_cert_data; // from an exec plugin; empty: the engine's own
  std::string client_key_data;
  bool operator==(const request_auth& o) const {
    return token == o.token && client_cert_data == o.client_cert_data
           && client_key_data == o.client_key_data;
  }
};

struct pending_request {
  uint64_t id = 0;
  k8s::http_call call;
  bool replay_harmless = false; // k8s::replay_is_harmless(call), decided once
  std::string resource;        // metrics label
  int attempt = 0;             // retries done so far
  clock_type::time_point not_before{};
  clock_type::time_point started{};
  uint64_t transfer = 0;       // engine id while in flight
  bool in_flight = false;
  // Exactly one of the three promise kinds is used.
  caf::typed_response_promise<k8s::api_response> single;
  bool is_list = false;
  k8s::list_request list;
  k8s::list_response pages;
  caf::typed_response_promise<k8s::list_response> list_promise;
  bool is_eviction = false; // answered whatever the status, never retried
  caf::typed_response_promise<k8s::eviction_response> eviction_promise;
  bool is_watch = false;
  caf::actor_addr sink; // weak: a dead informer must not be kept alive by its watch
  caf::typed_response_promise<uint64_t> watch_promise;
  request_auth auth_used;    // of the latest attempt
  bool reauthenticated = false; // sent again once after a 401 with fresh credentials
};

struct api_client_state {
  static inline const char* name = "api-client";
  std::shared_ptr<k8s::http_engine> engine;
  k8s::cluster_config cfg;
  api_client_options opts;
  std::unique_ptr<k8s::token_bucket> bucket;
  k8s::backoff_policy backoff;
  std::mt19937_64 rng{std::random_device{}()};
  std::string token;
  clock_type::time_point token_read{};
  std::shared_ptr<k8s::exec_credential_source> exec; // set when the user has only an exec plugin
  uint64_t next_id = 1;
  std::map<uint64_t, pending_request> requests;
  std::deque<uint64_t> queue;
  std::size_t list_pages_in_flight = 0;
  clock_type::time_point next_tick = clock_type::time_point::max();

  ~api_client_state() {
    if (engine)
      engine->stop();
  }
};

using api_client_pointer = api_client_actor::stateful_pointer<api_client_state>;

std::string auth_token(api_client_state& st) {
  if (!st.cfg.token_file.empty()
      && clock_type::now() - st.token_read >= st.opts.token_reread) {
    std::ifstream in{st.cfg.token_file};
    if (in) {
      std::ostringstream ss;
      ss << in.rdbuf();
      auto t = ss.str();
      while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back())))
        t.pop_back();
      if (!t.empty())
        st.token = t;
    } else {
      spdlog::warn("api client: cannot re-read token file {}; keeping the old token",
                   st.cfg.token_file);
    }
    st.token_read = clock_type::now();
  }
  return st.token;
}

// A static token or tokenFile wins over an exec plugin, as client-go's exec roundTripper
// leaves an Authorization header that is already set alone. The plugin runs here, on the
// actor's thread, only when its credential has expired (or after a 401): requests wait for
// it as they do in client-go, and the engine's thread never runs it.
expected<request_auth> current_auth(api_client_state& st) {
  request_auth auth;
  auth.token = auth_token(st);
  if (!auth.token.empty() || !st.exec)
    return auth;
  auto cred = st.exec->get();
  if (!cred)
    return cred.err();
  return request_auth{cred->token, cred->client_cert_data, cred->client_key_data};
}

// After a 401: fresh credentials for what follows (an exec plugin run again unless another
// request rotated them already, client-go's maybeRefreshCreds; a tokenFile re-read now).
// True when they differ from those the request carried, so sending it again may succeed.
expected<bool> reauthenticate(api_client_state& st, const pending_request& p) {
  if (st.exec) {
    auto cred = st.exec->refresh_after_unauthorized(p.auth_used.token);
    if (!cred)
      return cred.err();
    return !(request_auth{cred->token, cred->client_cert_data, cred->client_key_data}
             == p.auth_used);
  }
  if (!st.cfg.token_file.empty()) {
    st.token_read = {};
    return auth_token(st) != p.auth_used.token;
  }
  return false;
}

void schedule_tick(api_client_pointer self, clock_type::time_point when) {
  auto& st = self->state;
  if (when >= st.next_tick && st.next_tick > clock_type::now())
    return;
  st.next_tick = when;
  auto delay = when - clock_type::now();
  if (delay < clock_type::duration::zero())
    delay = clock_type::duration::zero();
  self->delayed_send(self, std::chrono::duration_cast<std::chrono::microseconds>(delay)
                             + std::chrono::microseconds{100},
                     atom::tick_v);
}

void fail(api_client_pointer self, pending_request& p, const caf::error& err);

// False when the request cannot go out (its credentials could not be had); it has failed.
bool dispatch(api_client_pointer self, pending_request& p) {
  auto& st = self->state;
  auto auth = current_auth(st);
  if (!auth) {
    fail(self, p, to_caf_error(auth.err()));
    return false;
  }
  p.auth_used = *auth;
  k8s::http_request req;
  req.method = p.call.method;
  req.url = st.cfg.server + p.call.target;
  req.body = p.call.body;
  req.no_resend = !p.replay_harmless;
  req.headers.push_back("Accept: application/json");
  req.headers.push_back("User-Agent: " + st.opts.user_agent);
  if (!p.call.content_type.empty())
    req.headers.push_back("Content-Type: " + p.call.content_type);
  if (!p.auth_used.token.empty())
    req.headers.push_back("Authorization: Bearer " + p.auth_used.token);
  req.client_cert_data = p.auth_used.client_cert_data;
  req.client_key_data = p.auth_used.client_key_data;
  if (p.is_watch) {
    req.streaming = true;
    // The server ends the watch after timeoutSeconds; a silent connection is dead.
    req.low_speed_time = std::chrono::seconds{p.call.target.find("timeoutSeconds=") != std::string::npos
                                                ? 30 + 300
                                                : 600};
  } else {
    req.timeout = st.opts.request_timeout;
  }
  caf::actor_addr me = self->address();
  auto id = p.id;
  k8s::http_engine::data_callback on_data;
  if (p.is_watch) {
    auto sink = p.sink;
    on_data = [sink, id](std::string_view data) {
      note_api_answer();
      if (auto strong = caf::actor_cast<caf::actor>(sink))
        caf::anon_send(strong, watch_chunk{id, std::string{data}});
    };
  }
  auto on_done = [me, id](k8s::http_result r) {
    if (auto strong = caf::actor_cast<caf::actor>(me))
      caf::anon_send(strong, http_completion{id, r.status, std::move(r.body),
                                             std::move(r.retry_after), std::move(r.error),
                                             r.request_sent});
  };
  p.in_flight = true;
  if (p.is_list)
    ++st.list_pages_in_flight;
  p.started = clock_type::now();
  p.transfer = st.engine->submit(std::move(req), std::move(on_data), std::move(on_done));
  if (p.is_watch && p.watch_promise.pending())
    p.watch_promise.deliver(p.id);
  return true;
}

// A list takes one token of the rate limit however many pages it has: its later pages
// ride on the first. client-go's informers list with resourceVersion=0, which the API
// server answers whole from its watch cache (limit ignored), one request per list;
// schedopt pages (500 objects) to bound the memory a page takes, and paced page by page
// its informers' sync grew with the page count and spent the burst a request's first
// VMIM then waited for. A list has one
// page in flight at a time, so its pages come no faster than the server answers them.
bool is_list_continuation(const pending_request& p) {
  return p.is_list && !p.list.continue_token.empty();
}

void pump(api_client_pointer self) {
  auto& st = self->state;
  auto now = clock_type::now();
  auto earliest = clock_type::time_point::max();
  for (auto i = st.queue.begin(); i != st.queue.end();) {
    auto r = st.requests.find(*i);
    if (r == st.requests.end()) {
      i = st.queue.erase(i);
      continue;
    }
    auto& p = r->second;
    if (p.not_before > now) {
      earliest = std::min(earliest, p.not_before);
      ++i;
      continue;
    }
    if (p.is_list && st.list_pages_in_flight >= st.opts.max_list_pages_in_flight) {
      ++i; // a page in flight ends and pumps again
      continue;
    }
    if (!is_list_continuation(p) && !st.bucket->try_take(now)) {
      earliest = std::min(earliest, now + st.bucket->wait_time(now));
      break;
    }
    i = st.queue.erase(i);
    if (st.opts.writes && p.call.method != "GET" && !st.opts.writes->is_open(now)) {
      fail(self, p, to_caf_error(ec::cancelled, "not sent: " + p.call.method + " "
                                                  + p.call.target
                                                  + " (leadership lapsed; no write may go out)"));
      st.requests.erase(r);
      continue;
    }
    if (!dispatch(self, p))
      st.requests.erase(r);
  }
  if (earliest != clock_type::time_point::max())
    schedule_tick(self, earliest);
}

void record_metrics(const pending_request& p, int status, double seconds) {
  auto& m = k8s::default_metrics();
  m.counter_add("schedopt_api_requests_total",
                {{"verb", p.call.verb}, {"resource", p.resource},
                 {"code", status == 0 ? std::string{"error"} : std::to_string(status)}});
  if (!p.is_watch)
    m.observe("schedopt_api_request_duration_seconds",
              {{"verb", p.call.verb}, {"resource", p.resource}}, seconds);
}

void fail(api_client_pointer self, pending_request& p, const caf::error& err) {
  if (p.is_watch) {
    // Before the watch started only the requester hears of it; afterwards only the sink.
    if (p.watch_promise.pending())
      p.watch_promise.deliver(err);
    else if (auto sink = caf::actor_cast<caf::actor>(p.sink))
      self->send(caf::actor_cast<watch_sink_actor>(sink), watch_closed{p.id, err});
  } else if (p.is_list) {
    p.list_promise.deliver(err);
  } else if (p.is_eviction) {
    p.eviction_promise.deliver(err);
  } else {
    p.single.deliver(err);
  }
}

template <class Request>
pending_request& enqueue_common(api_client_pointer self, const Request& r,
                                const k8s::resource& res) {
  auto& st = self->state;
  auto id = st.next_id++;
  auto& p = st.requests[id];
  p.id = id;
  p.call = k8s::to_http(r);
  p.replay_harmless = k8s::replay_is_harmless(p.call);
  p.resource = k8s::metric_resource(res);
  st.queue.push_back(id);
  return p;
}

bool queue_full(api_client_pointer self) {
  auto& st = self->state;
  return st.queue.size() >= st.opts.max_pending;
}

caf::error queue_full_error(api_client_pointer self) {
  return to_caf_error(ec::too_many_requests,
                      "client-side queue full (" + std::to_string(self->state.opts.max_pending)
                        + " requests waiting for the rate limiter)");
}

template <class Request>
caf::result<k8s::api_response> enqueue_single(api_client_pointer self, const Request& r) {
  if (queue_full(self))
    return queue_full_error(self);
  auto& p = enqueue_common(self, r, r.res);
  p.single = self->template make_response_promise<k8s::api_response>();
  auto promise = p.single;
  pump(self);
  return promise;
}

void complete(api_client_pointer self, http_completion& c,
              std::map<uint64_t, pending_request>::iterator i) {
  auto& st = self->state;
  auto& p = i->second;
  p.in_flight = false;
  std::chrono::duration<double> took = clock_type::now() - p.started;
  record_metrics(p, c.http_status, took.count());
  if (c.http_status > 0 && c.http_status < 500)
    note_api_answer();
  if (c.http_status == 401) {
    auto fresh = reauthenticate(st, p);
    if (!fresh) { // the plugin's own error says more than a bare 401
      fail(self, p, to_caf_error(fresh.err()));
      st.requests.erase(i);
      return;
    }
    if (*fresh && !p.is_watch && !p.reauthenticated) {
      // Unauthenticated means unprocessed: sending it again cannot repeat a write.
      p.reauthenticated = true;
      p.not_before = {};
      st.queue.push_front(p.id);
      pump(self);
      return;
    }
  }
  if (p.is_watch) {
    caf::error err;
    if (c.transport_error == "cancelled")
      err = to_caf_error(ec::cancelled, "watch cancelled");
    else if (c.http_status >= 200 && c.http_status < 300)
      err = c.transport_error.empty()
              ? caf::error{}
              : to_caf_error(k8s::transport_error(c.transport_error, p.call.target));
    else if (c.http_status == 0)
      err = to_caf_error(k8s::transport_error(c.transport_error, p.call.target));
    else
      err = to_caf_error(k8s::api_error(c.http_status, c.body));
    if (auto sink = caf::actor_cast<caf::actor>(p.sink))
      self->send(caf::actor_cast<watch_sink_actor>(sink), watch_closed{p.id, err});
    st.requests.erase(i);
    return;
  }
  if (p.is_eviction) {
    p.eviction_promise.deliver(k8s::eviction_response{c.http_status, std::move(c.body),
                                                      std::move(c.retry_after),
                                                      std::move(c.transport_error)});
    st.requests.erase(i);
    return;
  }
  bool ok = c.transport_error.empty() && c.http_status >= 200 && c.http_status < 300;
  if (!ok) {
    // A 2xx whose body broke off is not retried (client-go reads the body after its retry
    // decision): the caller hears of it, and a write it answered was made.
    k8s::attempt_result attempt{c.http_status,
                                k8s::parse_retry_after(c.retry_after).count() >= 0,
                                c.request_sent};
    auto decision = k8s::decide_retry(attempt, p.replay_harmless);
    if (decision.retry && p.attempt < st.opts.max_retries) {
      ++p.attempt;
      auto delay = k8s::retry_delay(st.backoff, p.attempt, c.retry_after, st.rng);
      spdlog::debug("api client: {} {} -> {} {}; retry {} in {}ms", p.call.method, p.call.target,
                    c.http_status, c.transport_error, p.attempt, delay.count());
      p.not_before = clock_type::now() + delay;
      st.queue.push_back(p.id);
      pump(self);
      return;
    }
    if (!decision.retry && (c.http_status == 0 || c.http_status >= 500))
      spdlog::info("api client: {} {} -> {} {}; not retried: {}", p.call.method, p.call.target,
                   c.http_status, c.transport_error, decision.why);
    auto err = c.http_status == 0 ? k8s::transport_error(c.transport_error, p.call.target)
                                  : k8s::api_error(c.http_status, c.body);
    fail(self, p, to_caf_error(err));
    st.requests.erase(i);
    return;
  }
  if (p.is_list) {
    auto meta = k8s::read_list_metadata(c.body);
    if (!meta) {
      fail(self, p, to_caf_error(meta.err()));
      st.requests.erase(i);
      return;
    }
    if (p.pages.pages.empty())
      p.pages.resource_version = meta->resource_version;
    p.pages.pages.push_back(std::move(c.body));
    if (p.list.all_pages && !meta->continue_token.empty()) {
      p.list.continue_token = meta->continue_token;
      p.call = k8s::to_http(p.list);
      p.attempt = 0;
      p.not_before = {};
      st.queue.push_front(p.id); // a started list finishes before new work
      pump(self);
      return;
    }
    p.list_promise.deliver(std::move(p.pages));
  } else {
    p.single.deliver(k8s::api_response{c.http_status, std::move(c.body)});
  }
  st.requests.erase(i);
}

void on_completion(api_client_pointer self, http_completion& c) {
  auto& st = self->state;
  auto i = st.requests.find(c.request_id);
  if (i == st.requests.end())
    return;
  bool list_page = i->second.is_list && i->second.in_flight;
  if (list_page)
    --st.list_pages_in_flight;
  complete(self, c, i);
  if (list_page)
    pump(self); // a list waiting for a page slot may go
}

api_client_actor::behavior_type api_client(api_client_pointer self,
                                           std::shared_ptr<k8s::http_engine> engine,
                                           k8s::cluster_config cfg, api_client_options opts,
                                           std::shared_ptr<k8s::exec_credential_source> exec) {
  auto& st = self->state;
  st.engine = std::move(engine);
  st.exec = std::move(exec);
  st.cfg = std::move(cfg);
  st.opts = opts;
  st.bucket = std::make_unique<k8s::token_bucket>(opts.qps, opts.burst);
  st.backoff = k8s::backoff_policy{opts.initial_backoff, opts.max_backoff, opts.max_retries};
  st.token = st.cfg.token;
  st.token_read = clock_type::now();
  auto& m = k8s::default_metrics();
  m.describe_counter("schedopt_api_requests_total",
                     "Kubernetes API requests by verb, resource and HTTP code.");
  m.describe_histogram("schedopt_api_request_duration_seconds",
                       "Kubernetes API request latency (watches excluded).",
                       k8s::default_latency_buckets());
  return {
    [=](const k8s::get_request& r) { return enqueue_single(self, r); },
    [=](const k8s::list_request& r) -> caf::result<k8s::list_response> {
      if (queue_full(self))
        return queue_full_error(self);
      auto& p = enqueue_common(self, r, r.res);
      p.is_list = true;
      p.list = r;
      p.list_promise = self->make_response_promise<k8s::list_response>();
      auto promise = p.list_promise;
      pump(self);
      return promise;
    },
    [=](const k8s::create_request& r) { return enqueue_single(self, r); },
    [=](const k8s::patch_request& r) { return enqueue_single(self, r); },
    [=](const k8s::eviction_request& r) -> caf::result<k8s::eviction_response> {
      if (queue_full(self))
        return queue_full_error(self);
      auto& p = enqueue_common(self, r, k8s::resources::pods);
      p.resource = "pods/eviction";
      p.is_eviction = true;
      p.eviction_promise = self->make_response_promise<k8s::eviction_response>();
      auto promise = p.eviction_promise;
      pump(self);
      return promise;
    },
    [=](const k8s::update_request& r) { return enqueue_single(self, r); },
    [=](const k8s::delete_request& r) { return enqueue_single(self, r); },
    [=](const k8s::watch_request& r, watch_sink_actor sink) -> caf::result<uint64_t> {
      if (queue_full(self))
        return queue_full_error(self);
      auto& p = enqueue_common(self, r, r.res);
      p.is_watch = true;
      p.sink = sink.address();
      p.watch_promise = self->make_response_promise<uint64_t>();
      auto promise = p.watch_promise;
      pump(self);
      return promise;
    },
    [=](atom::cancel, uint64_t id) {
      auto& st = self->state;
      auto i = st.requests.find(id);
      if (i == st.requests.end())
        return;
      if (i->second.in_flight) {
        st.engine->cancel(i->second.transfer); // completion reports the cancel
      } else {
        fail(self, i->second, to_caf_error(ec::cancelled, "watch cancelled"));
        st.requests.erase(i);
      }
    },
    [=](http_completion& c) { on_completion(self, c); },
    [=](atom::tick) {
      self->state.next_tick = clock_type::time_point::max();
      pump(self);
    },
  };
}

k8s::tls_config tls_of(const k8s::cluster_config& cfg) {
  k8s::tls_config tls;
  tls.ca_file = cfg.ca_file;
  tls.ca_data = cfg.ca_data;
  tls.insecure_skip_verify = cfg.insecure_skip_tls_verify;
  tls.client_cert_file = cfg.client_cert_file;
  tls.client_cert_data = cfg.client_cert_data;
  tls.client_key_file = cfg.client_key_file;
  tls.client_key_data = cfg.client_key_data;
  return tls;
}

} // namespace

std::chrono::steady_clock::time_point last_api_answer() {
  return std::chrono::steady_clock::time_point{
    std::chrono::steady_clock::duration{last_answer_ticks.load()}};
}

caf::expected<api_client_actor> spawn_api_client(caf::actor_system& sys,
                                                 const k8s::cluster_config& cfg,
                                                 api_client_options options) {
  if (cfg.server.empty())
    return to_caf_error(ec::config_error, "cluster config: server is empty");
  for (auto* file : {&cfg.ca_file, &cfg.client_cert_file, &cfg.client_key_file})
    if (!file->empty() && !std::ifstream{*file})
      return to_caf_error(ec::config_error, "cluster config: cannot read " + *file);
  std::shared_ptr<k8s::exec_credential_source> exec;
  if (cfg.exec && cfg.token.empty() && cfg.token_file.empty()) {
    exec = std::make_shared<k8s::exec_credential_source>(*cfg.exec);
    // Run once now: a plugin that cannot give a credential stops the start, in one line.
    if (auto first = exec->get(); !first)
      return to_caf_error(first.err());
  }
  auto engine = std::make_shared<k8s::http_engine>(tls_of(cfg));
  if (last_answer_ticks.load() == 0)
    note_api_answer(); // the window starts now, not at the epoch
  return sys.spawn(api_client, std::move(engine), cfg, options, std::move(exec));
}

} // namespace schedopt
