// portworx: replica nodes from the OpenStorage SDK REST gateway of Portworx — one
// inspectwithfilters for every volume's replica sets and one nodes/filters enumerate to
// map Portworx node ids onto Kubernetes node names; a gateway without them (404/501)
// gets per-volume inspects and enumerate + per-node inspects, and so does a lead query
// (a few volumes wanted before the bulk answer is in). Calls go through one
// k8s::http_engine, at most `max_concurrent` at a time. Transient failures (429, 5xx,
// transport) are retried with backoff; a run fails only when a call's retries are spent
// or a 4xx says it is hopeless.
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

#include "actors/drivers/storage_drivers.hpp"
#include "actors/system_config.hpp"
#include "k8s/backoff.hpp"
#include "k8s/http_engine.hpp"
#include "k8s/paths.hpp"
#include "model/outcome.hpp"
#include "model/portworx_match.hpp"
#include "model/portworx_sdk.hpp"

namespace schedopt {

namespace {

constexpr const char* portworx_csi_driver = "pxd.portworx.com";
constexpr std::size_t max_concurrent = 32;

bool portworx_owns(const persistent_volume& pv, const settings&) {
  return pv.csi_driver == portworx_csi_driver;
}

/// One replica query in progress.
struct lookup {
  caf::typed_response_promise<replica_answer> promise;
  replica_query query;
  std::vector<sdk_node> sdk_nodes;
  std::size_t nodes_pending = 0;
  std::unique_ptr<px_volume_match> match; // which volume backs each queried PV
  replica_answer answer;
  std::size_t volumes_pending = 0;
  bool failed = false;
};

/// One SDK call: what it is (for logs and errors), where, and what to do with its final
/// answer once retries are done.
struct sdk_call {
  std::shared_ptr<lookup> owner;
  std::string what;
  std::string path;
  std::function<void(const http_completion&, int attempts)> handler;
  int attempts = 0; // calls made so far
  std::string method = "GET";
  std::string body;
  std::chrono::seconds timeout{30};
  /// Set for the bulk volume inspect: its 2xx body is decoded as it arrives, by the
  /// engine's thread, afresh per attempt (the handler reads the slot).
  std::shared_ptr<struct bulk_decode> stream;
};

/// The bulk answer decoded and matched as it downloads: each volume is offered to the
/// match as it decodes and dropped, so only the queried PVs' replica node ids are kept.
/// Both are made anew per attempt, so a retried call starts from nothing.
struct bulk_decode {
  const shared_list<persistent_volume>* pvs = nullptr; // the lookup's query, which outlives it
  std::unique_ptr<px_volume_match> match;
  std::unique_ptr<sdk_volume_stream> stream;

  void restart() {
    match = std::make_unique<px_volume_match>(*pvs);
    stream = std::make_unique<sdk_volume_stream>(
      [m = match.get()](sdk_volume&& v) { m->offer(v); });
  }
};

struct portworx_state {
  static inline const char* name = "portworx-driver";
  std::string endpoint;
  std::string token_file; // empty, or read for each call sent over https://
  std::string ca_file;
  std::unique_ptr<k8s::http_engine> engine;
  sdk_retry_policy retry;
  uint64_t next_call = 1;
  std::map<uint64_t, sdk_call> calls;       // on the wire
  std::deque<sdk_call> queued;              // waiting for a free slot
  std::map<uint64_t, sdk_call> backing_off; // waiting for their retry timer
  std::size_t running = 0;
  // Learnt from a 404/501, so later runs go straight to the per-object calls.
  bool no_bulk_volumes = false;
  bool no_bulk_nodes = false;
};

using portworx_pointer = storage_driver_actor::stateful_pointer<portworx_state>;

bool is_plain_http(const std::string& endpoint) {
  return endpoint.rfind("http://", 0) == 0;
}

/// The token for the next call; never for plain http://, where anything on the path
/// could read it (settings refuse that combination; this holds even if they did not).
std::string bearer_token(portworx_state& st) {
  if (st.token_file.empty() || is_plain_http(st.endpoint))
    return {};
  std::ifstream in{st.token_file};
  std::stringstream ss;
  ss << in.rdbuf();
  auto text = ss.str();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.pop_back();
  return text;
}

void start_queued(portworx_pointer self) {
  auto& st = self->state;
  while (st.running < max_concurrent && !st.queued.empty()) {
    auto sc = std::move(st.queued.front());
    st.queued.pop_front();
    // Once a run has failed its answer is sent; the rest of its calls would be wasted load.
    if (sc.owner->failed)
      continue;
    k8s::http_request req;
    req.method = sc.method;
    req.url = st.endpoint + sc.path;
    req.timeout = sc.timeout;
    req.headers.push_back("Accept: application/json");
    if (!sc.body.empty()) {
      req.body = sc.body;
      req.headers.push_back("Content-Type: application/json");
    }
    if (auto token = bearer_token(st); !token.empty())
      req.headers.push_back("Authorization: Bearer " + token);
    ++sc.attempts;
    k8s::http_engine::data_callback on_data;
    if (sc.stream) {
      sc.stream->restart();
      req.streaming = true;
      on_data = [slot = sc.stream](std::string_view bytes) { slot->stream->feed(bytes); };
    }
    auto id = st.next_call++;
    st.calls.emplace(id, std::move(sc));
    ++st.running;
    auto handle = caf::actor_cast<storage_driver_actor>(self);
    st.engine->submit(std::move(req), std::move(on_data), [handle, id](k8s::http_result r) {
      caf::anon_send(handle, http_completion{id, r.status, std::move(r.body), r.retry_after,
                                             std::move(r.error)});
    });
  }
}

sdk_call make_call(const std::shared_ptr<lookup>& owner, std::string what, std::string path,
                   std::function<void(const http_completion&, int)> handler) {
  sdk_call sc;
  sc.owner = owner;
  sc.what = std::move(what);
  sc.path = std::move(path);
  sc.handler = std::move(handler);
  return sc;
}

void call(portworx_pointer self, const std::shared_ptr<lookup>& owner, std::string what,
          std::string path, std::function<void(const http_completion&, int)> handler) {
  self->state.queued.push_back(make_call(owner, std::move(what), std::move(path),
                                         std::move(handler)));
  start_queued(self);
}

/// A bulk POST: its answer grows with every volume of the cluster (hundreds of MB at the
/// largest scale), so it gets a longer timeout.
void post(portworx_pointer self, const std::shared_ptr<lookup>& owner, std::string what,
          std::string path, std::string body,
          std::function<void(const http_completion&, int)> handler,
          std::shared_ptr<bulk_decode> stream) {
  auto sc = make_call(owner, std::move(what), std::move(path), std::move(handler));
  sc.method = "POST";
  sc.body = std::move(body);
  sc.timeout = std::chrono::seconds(300);
  sc.stream = std::move(stream);
  self->state.queued.push_back(std::move(sc));
  start_queued(self);
}

std::string describe_answer(const http_completion& c) {
  if (!c.transport_error.empty())
    return c.http_status == 0 ? c.transport_error
                              : "HTTP " + std::to_string(c.http_status) + ": " + c.transport_error;
  return "HTTP " + std::to_string(c.http_status) + ": " + sdk_error_message(c.body);
}

std::string describe_failure(const std::string& what, const http_completion& c, int attempts) {
  auto text = what + ": " + describe_answer(c);
  if (attempts > 1)
    text += " (gave up after " + std::to_string(attempts) + " attempts)";
  return text;
}

/// curl could not verify the gateway's certificate (or read the CA file): retrying will
/// not help, and the message should say which CAs were used.
bool tls_verification_failed(const http_completion& c) {
  auto& e = c.transport_error;
  return c.http_status == 0
         && (e.find("certificate") != std::string::npos || e.find("CA cert") != std::string::npos);
}

std::string describe_tls_failure(const portworx_state& st, const std::string& what,
                                 const http_completion& c) {
  return what + ": TLS verification of " + st.endpoint + " failed: " + c.transport_error + " ("
         + (st.ca_file.empty() ? std::string{"verified against the system CAs; set portworxCaFile "
                                             "(--portworx-ca-file) to the gateway's CA"}
                               : "verified against portworxCaFile " + st.ca_file)
         + ")";
}

bool answered_ok(const http_completion& c) {
  return classify_sdk_answer(c.http_status, !c.transport_error.empty()) == sdk_answer_kind::ok;
}

/// Fails the lookup, worded "driver failure: portworx: <what failed>".
void fail(const std::shared_ptr<lookup>& l, const std::string& what_failed) {
  if (l->failed)
    return;
  l->failed = true;
  auto message = driver_failure_reason("portworx: " + what_failed);
  spdlog::error("{}", message);
  l->promise.deliver(to_caf_error(ec::driver_error, std::move(message)));
}

/// A call's answer: a transient failure goes back in line after a backoff while attempts
/// remain; anything else (or the last failure) goes to the call's handler.
void on_answer(portworx_pointer self, sdk_call sc, const http_completion& c) {
  auto& st = self->state;
  auto kind = classify_sdk_answer(c.http_status, !c.transport_error.empty());
  if (tls_verification_failed(c))
    return fail(sc.owner, describe_tls_failure(st, sc.what, c));
  if (kind == sdk_answer_kind::transient && !sc.owner->failed) {
    if (auto delay = sdk_retry_delay(st.retry, sc.attempts, k8s::parse_retry_after(c.retry_after))) {
      spdlog::warn("portworx: {} ({} {}): {}; retry {} of {} in {}ms", sc.what, sc.method, sc.path,
                   describe_answer(c), sc.attempts, st.retry.max_attempts - 1, delay->count());
      // The timer is an http_completion to ourselves: the actor's interface is shared
      // with other components, and this id is never a transfer's.
      auto timer = st.next_call++;
      st.backing_off.emplace(timer, std::move(sc));
      self->delayed_send(self, *delay, http_completion{timer, 0, {}, {}, {}});
      return;
    }
  }
  sc.handler(c, sc.attempts);
}

void finish_if_done(const std::shared_ptr<lookup>& l) {
  if (l->failed || l->nodes_pending > 0 || l->volumes_pending > 0)
    return;
  // Node names shared once here: 60,000 replicas at 10,000 VMIs name 50 nodes.
  std::map<std::string, shared_string> names;
  for (auto& [id, name] : map_sdk_nodes(l->sdk_nodes, l->query.nodes))
    names.emplace(id, shared_string(std::move(name)));
  // The match hands out the same few id strings (one per distinct node) for every
  // volume: each is looked up by name once, then by address (600,000 at 200,000 PVs).
  std::unordered_map<const std::string*, const shared_string*> by_address;
  auto name_of = [&](const std::string* id) -> const shared_string* {
    auto [at, fresh] = by_address.try_emplace(id, nullptr);
    if (fresh)
      if (auto i = names.find(*id); i != names.end())
        at->second = &i->second;
    return at->second;
  };
  auto found = [&](const persistent_volume& pv, const std::vector<const std::string*>& ids) {
    replica_nodes nodes;
    nodes.reserve(ids.size());
    for (auto* id : ids) {
      if (auto* name = name_of(id))
        nodes.push_back(*name);
      else
        spdlog::warn("portworx node {} (replica of {}) matches no Kubernetes node", *id,
                     pv.metadata.name.str());
    }
    if (l->query.by_position)
      l->answer.by_position.push_back(std::move(nodes));
    else // the PVs come sorted by name: each lands at the end
      l->answer.replicas.emplace_hint(l->answer.replicas.end(), pv.metadata.name, std::move(nodes));
  };
  auto missing = [&](const persistent_volume& pv) {
    l->answer.errors.emplace_back(pv.metadata.name,
                                  "portworx volume \"" + pv.volume_handle + "\" not found");
    if (l->query.by_position)
      l->answer.by_position.push_back({});
  };
  if (l->query.by_position)
    l->answer.by_position.reserve(l->query.volumes.size());
  else
    l->answer.replicas.reserve(l->query.volumes.size());
  if (l->match)
    l->match->visit(found, missing);
  l->match.reset();
  l->answer.by_position.seal();
  l->promise.deliver(std::move(l->answer));
}

void inspect_volumes(portworx_pointer self, const std::shared_ptr<lookup>& l) {
  l->volumes_pending = l->query.volumes.size();
  l->match = std::make_unique<px_volume_match>(l->query.volumes);
  for (std::size_t index = 0; index < l->query.volumes.size(); ++index) {
    auto& pv = l->query.volumes[index];
    auto volume_id = pv->volume_handle.str();
    auto what = "inspect volume " + volume_id;
    call(self, l, what, "/v1/volumes/inspect/" + k8s::url_encode(volume_id),
         [=](const http_completion& c, int attempts) {
           --l->volumes_pending;
           if (c.http_status == 404 && c.transport_error.empty()) {
             // not found: the match reports it (finish_if_done)
           } else if (!answered_ok(c)) {
             return fail(l, describe_failure(what, c, attempts));
           } else if (auto v = decode_sdk_volume_inspect(c.body); !v) {
             return fail(l, "inspect volume " + volume_id + ": "
                              + v.err().message);
           } else {
             l->match->record(index, v->replica_node_ids);
           }
           finish_if_done(l);
         });
  }
  finish_if_done(l);
}

void enumerate_nodes(portworx_pointer self, const std::shared_ptr<lookup>& l) {
  call(self, l, "enumerate nodes", "/v1/nodes", [=](const http_completion& c, int attempts) {
    if (!answered_ok(c))
      return fail(l, describe_failure("enumerate nodes", c, attempts));
    auto ids = decode_sdk_node_enumerate(c.body);
    if (!ids)
      return fail(l, "enumerate nodes: " + ids.err().message);
    l->nodes_pending = ids->size();
    for (auto& id : *ids) {
      auto what = "inspect node " + id;
      call(self, l, what, "/v1/nodes/inspect/" + k8s::url_encode(id),
           [=](const http_completion& c, int attempts) {
        --l->nodes_pending;
        if (!answered_ok(c))
          return fail(l, describe_failure(what, c, attempts));
        auto n = decode_sdk_node_inspect(c.body);
        if (!n)
          return fail(l, "inspect node " + id + ": " + n.err().message);
        l->sdk_nodes.push_back(std::move(*n));
        finish_if_done(l);
      });
    }
    finish_if_done(l);
  });
}

/// One EnumerateWithFilters for every node, whole; enumerate + inspect on old gateways.
void enumerate_nodes_in_bulk(portworx_pointer self, const std::shared_ptr<lookup>& l) {
  if (self->state.no_bulk_nodes)
    return enumerate_nodes(self, l);
  call(self, l, "enumerate nodes", "/v1/nodes/filters", [=](const http_completion& c, int attempts) {
    if (sdk_bulk_unsupported(c.http_status, !c.transport_error.empty())) {
      spdlog::info("portworx: the SDK gateway has no GET /v1/nodes/filters (HTTP {}); "
                   "enumerating and inspecting nodes one by one", c.http_status);
      self->state.no_bulk_nodes = true;
      return enumerate_nodes(self, l);
    }
    if (!answered_ok(c))
      return fail(l, describe_failure("enumerate nodes", c, attempts));
    auto nodes = decode_sdk_node_enumerate_with_filters(c.body);
    if (!nodes)
      return fail(l, "enumerate nodes: " + nodes.err().message);
    l->sdk_nodes = std::move(*nodes);
    l->nodes_pending = 0;
    finish_if_done(l);
  });
}

/// One InspectWithFilters (no filter: every volume) instead of one inspect per volume;
/// a queried volume missing from the answer is a per-volume error, as a 404 is.
void inspect_volumes_in_bulk(portworx_pointer self, const std::shared_ptr<lookup>& l) {
  if (self->state.no_bulk_volumes)
    return inspect_volumes(self, l);
  const std::string what = "inspect volumes";
  auto asked = std::chrono::steady_clock::now();
  auto stream = std::make_shared<bulk_decode>();
  stream->pvs = &l->query.volumes;
  post(self, l, what, "/v1/volumes/inspectwithfilters", "{}",
       [=](const http_completion& c, int attempts) {
    auto answered = std::chrono::steady_clock::now();
    if (sdk_bulk_unsupported(c.http_status, !c.transport_error.empty())) {
      spdlog::info("portworx: the SDK gateway has no POST /v1/volumes/inspectwithfilters "
                   "(HTTP {}); inspecting volumes one by one", c.http_status);
      self->state.no_bulk_volumes = true;
      return inspect_volumes(self, l);
    }
    if (!answered_ok(c))
      return fail(l, describe_failure(what, c, attempts));
    auto valid = stream->stream->finish(); // a body that was not streamed is matched here
    auto bytes = stream->stream->size();
    auto count = stream->stream->count();
    stream->stream.reset();
    if (!valid)
      return fail(l, "inspect volumes: " + valid.err().message);
    l->match = std::move(stream->match);
    l->match->end_of_offers();
    l->volumes_pending = 0;
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    spdlog::info("portworx: {} volumes in one inspect ({} bytes, matched as they arrived, "
                 "{} distinct nodes): answered after {:.0f} ms, finished in {:.0f} ms",
                 count, bytes,
                 l->match->distinct_nodes(), ms(asked, answered),
                 ms(answered, std::chrono::steady_clock::now()));
    finish_if_done(l);
  }, stream);
}

storage_driver_actor::behavior_type portworx_driver(portworx_pointer self, settings cfg) {
  auto& st = self->state;
  st.endpoint = cfg.portworx_endpoint;
  while (!st.endpoint.empty() && st.endpoint.back() == '/')
    st.endpoint.pop_back();
  st.token_file = cfg.portworx_token_file;
  st.ca_file = cfg.portworx_ca_file;
  k8s::tls_config tls;
  tls.ca_file = cfg.portworx_ca_file; // read by curl for each new connection
  st.engine = std::make_unique<k8s::http_engine>(std::move(tls));
  return {
    [=](replica_query& q) -> caf::result<replica_answer> {
      auto l = std::make_shared<lookup>();
      l->promise = self->make_response_promise<replica_answer>();
      l->query = std::move(q);
      // Nodes and volumes are asked for at once; each side stands for one pending call
      // until its answer (or its fallback's calls) replaces the count.
      l->nodes_pending = 1;
      l->volumes_pending = l->query.volumes.empty() ? 0 : 1;
      enumerate_nodes_in_bulk(self, l);
      // A lead's few volumes are inspected one by one: at scale the bulk answer, in the
      // same time, carries every volume of the cluster.
      if (!l->query.volumes.empty() && !l->failed)
        l->query.lead ? inspect_volumes(self, l) : inspect_volumes_in_bulk(self, l);
      return l->promise;
    },
    [=](const http_completion& c) {
      auto& st = self->state;
      if (auto w = st.backing_off.find(c.request_id); w != st.backing_off.end()) {
        st.queued.push_back(std::move(w->second)); // retry timer fired
        st.backing_off.erase(w);
      } else if (auto i = st.calls.find(c.request_id); i != st.calls.end()) {
        auto sc = std::move(i->second);
        st.calls.erase(i);
        --st.running;
        on_answer(self, std::move(sc), c);
      }
      start_queued(self);
    },
  };
}

} // namespace

storage_driver_entry portworx_driver_entry() {
  return {"portworx", portworx_owns,
          [](caf::actor_system& sys, const settings& cfg) -> caf::expected<storage_driver_actor> {
            if (cfg.portworx_endpoint.rfind("http://", 0) != 0
                && cfg.portworx_endpoint.rfind("https://", 0) != 0)
              return to_caf_error(ec::config_error, "portworx endpoint \"" + cfg.portworx_endpoint
                                                      + "\": must start with http:// or https://");
            if (!cfg.portworx_token_file.empty() && is_plain_http(cfg.portworx_endpoint))
              return to_caf_error(ec::config_error,
                                  "portworxTokenFile is set but portworxEndpoint \""
                                    + cfg.portworx_endpoint
                                    + "\" is plain http://: the token is only sent over https://");
            if (!cfg.portworx_ca_file.empty() && !std::ifstream{cfg.portworx_ca_file})
              return to_caf_error(ec::config_error, "portworxCaFile \"" + cfg.portworx_ca_file
                                                      + "\": cannot be read");
            return sys.spawn(portworx_driver, cfg);
          },
          /*answers_a_lead_sooner=*/ true};
}

} // namespace schedopt
