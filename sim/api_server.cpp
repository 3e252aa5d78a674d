// HTTP wiring of the simulated API server: authentication, authorization, faults, routing of
// /api and /apis paths to the resource handlers, discovery and admin endpoints.
#include "sim/api_server.hpp"
#include "sim/listen_backlog.hpp"
#include "k8s/listen_thread.hpp"

#include <atomic>
#include <optional>
#include <condition_variable>
#include <thread>

#include <httplib.h>

#include "model/timestamp.hpp"
#include "sim/access_reviews.hpp"
#include "sim/aggregated_discovery.hpp"
#include "sim/openapi_v3.hpp"
#include "sim/protobuf_wire.hpp"
#include "sim/managed_fields.hpp"
#include "sim/answer_fault_responses.hpp"
#include "sim/api_server_handlers.hpp"
#include "sim/admin_fault_rules.hpp"
#include "sim/admin_world_actions.hpp"
#include "sim/api_server_status.hpp"
#include "sim/audit_log.hpp"
#include "sim/request_attributes.hpp"
#include "sim/request_user.hpp"
#include "sim/tls_server.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

bool is_watch(const httplib::Request& req) {
  auto w = req.has_param("watch") ? req.get_param_value("watch") : std::string{};
  return w == "1" || w == "true" || req.path.find("/watch/") != std::string::npos;
}

bool is_public_path(const std::string& path) {
  return path == "/healthz" || path == "/readyz" || path == "/livez";
}

std::string audit_verb(const std::string& method) {
  if (method == "POST")
    return "create";
  if (method == "PUT")
    return "update";
  if (method == "PATCH")
    return "patch";
  if (method == "DELETE")
    return "delete";
  return {};
}

std::string name_in_body(const std::string& body) {
  auto obj = json::parse(body, nullptr, false);
  if (!obj.is_object() || !obj.contains("metadata") || !obj["metadata"].is_object())
    return {};
  return obj["metadata"].value("name", std::string{});
}

/// What a write was aimed at, read from its URL as apiserver's audit objectRef is; a
/// path outside /api and /apis (the admin endpoints) is its own resource.
audit_write describe_write(const httplib::Request& req, const httplib::Response& res,
                           const resource_registry& registry) {
  audit_write w;
  w.time = std::chrono::system_clock::now();
  w.verb = audit_verb(req.method);
  w.identity = req.get_header_value("User-Agent");
  w.code = res.status > 0 ? res.status : 200;
  auto segs = split_path(req.path);
  std::size_t rest_at = 0;
  std::string group, version;
  if (segs.size() >= 2 && segs[0] == "api") {
    version = segs[1];
    rest_at = 2;
  } else if (segs.size() >= 3 && segs[0] == "apis") {
    group = segs[1];
    version = segs[2];
    rest_at = 3;
  }
  if (rest_at == 0 || rest_at >= segs.size()) {
    w.resource = req.path.empty() ? std::string{} : req.path.substr(1);
    return w;
  }
  std::vector<std::string> rest(segs.begin() + static_cast<long>(rest_at), segs.end());
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    auto* r = registry.find(group, version, rest[2]);
    if (r != nullptr && r->type.namespaced) {
      w.ns = rest[1];
      rest.erase(rest.begin(), rest.begin() + 2);
    }
  }
  w.resource = rest[0];
  if (rest.size() >= 2)
    w.name = rest[1];
  if (rest.size() >= 3)
    w.subresource = rest[2];
  if (w.name.empty() && req.method == "POST") {
    // generateName: the name the server chose is in its answer.
    w.name = w.code / 100 == 2 ? name_in_body(res.body) : std::string{};
    if (w.name.empty())
      w.name = name_in_body(req.body);
  }
  return w;
}

} // namespace

struct api_server::impl {
  impl(object_store& s, resource_registry r, api_server_options o)
    : store(s), registry(std::move(r)), options(std::move(o)), faults(options.faults),
      handlers(store, registry, handler_options{options.bookmark_interval,
                                                options.faults.watch_drop_after, &stopping,
                                                options.partitions.get()}) {
    audit->attach(store);
  }

  object_store& store;
  resource_registry registry;
  api_server_options options;
  fault_injector faults;
  std::atomic<bool> stopping{false};
  resource_handlers handlers;
  std::unique_ptr<httplib::SSLServer> server;
  std::thread thread;
  int bound_port = 0;
  std::mutex failover_mtx;
  failover_handler failover;
  drain_handler drain; // under failover_mtx too
  std::shared_ptr<audit_log> audit = std::make_shared<audit_log>();
  std::thread compactor;
  std::mutex compactor_mtx;
  std::condition_variable compactor_wake;

  /// Every interval, compact to the revision seen one interval earlier, so a revision
  /// stays readable for one to two intervals. Follows kubernetes v1.36.3
  /// staging/src/k8s.io/apiserver/pkg/storage/etcd3/compact.go, compactor.runCompactLoop.
  void run_compactor() {
    uint64_t seen_last_tick = 0;
    std::unique_lock<std::mutex> guard(compactor_mtx);
    while (!compactor_wake.wait_for(guard, options.compaction_interval, [this] { return stopping.load(); })) {
      if (seen_last_tick != 0)
        handlers.compact(seen_last_tick);
      seen_last_tick = store.resource_version();
    }
  }

  void send(httplib::Response& res, int code, const json& body) { send_json(res, code, body); }

  /// Who sent a request: the admin (empty user name; audited as system:admin), a
  /// ServiceAccount, or nobody known.
  std::optional<user_info> authenticate(const httplib::Request& req) const {
    if (options.token.empty())
      return user_info{};
    auto header = req.get_header_value("Authorization");
    const std::string bearer = "Bearer ";
    if (header.rfind(bearer, 0) != 0)
      return std::nullopt;
    return authenticate_token(header.substr(bearer.size()));
  }

  std::optional<user_info> authenticate_token(const std::string& token) const {
    if (token == options.token)
      return user_info{};
    if (options.service_accounts)
      return options.service_accounts->authenticate(store, token);
    return std::nullopt;
  }

  /// POST tokenreviews, subjectaccessreviews and the self reviews of `requester`; false
  /// when `segs` names none.
  bool serve_review(const httplib::Request& req, httplib::Response& res, const std::vector<std::string>& segs,
                    const user_info& requester) {
    if (segs.size() != 4 || segs[0] != "apis" || segs[2] != "v1")
      return false;
    bool token_review = segs[1] == "authentication.k8s.io" && segs[3] == "tokenreviews";
    bool access_review = segs[1] == "authorization.k8s.io" && segs[3] == "subjectaccessreviews";
    bool own_access_review = segs[1] == "authorization.k8s.io" && segs[3] == "selfsubjectaccessreviews";
    bool self_review = segs[1] == "authentication.k8s.io" && segs[3] == "selfsubjectreviews";
    if (!token_review && !access_review && !own_access_review && !self_review)
      return false;
    if (req.method != "POST") {
      send(res, 405, status_failure(405, "MethodNotAllowed",
                                    "the server does not allow this method on the requested resource"));
      return true;
    }
    access_review_context ctx{store, options.authorization, [this](const std::string& token) {
                                auto user = authenticate_token(token);
                                if (user && user->name.empty()) // the kubeconfig's admin
                                  user = user_info{"system:admin", {"system:masters", "system:authenticated"}, {}};
                                return user;
                              }};
    json body;
    if (is_protobuf(req.get_header_value("Content-Type"))) { // kubectl auth can-i, auth whoami
      auto decoded = protobuf_body(req.body, segs[3]);
      if (!decoded) {
        send(res, 400, status_for_error(decoded.err(), nullptr, ""));
        return true;
      }
      body = std::move(*decoded);
    } else {
      body = json::parse(req.body, nullptr, false);
      if (body.is_discarded()) {
        send(res, 400, status_failure(400, "BadRequest", "the request body is not valid JSON"));
        return true;
      }
    }
    // The kubeconfig's admin token names no user; the reviews name it as above.
    auto who = requester.name.empty() ? user_info{"system:admin", {"system:masters", "system:authenticated"}, {}}
                                      : requester;
    auto [code, answer] = token_review       ? review_token(ctx, body)
                          : access_review    ? review_access(ctx, body)
                          : own_access_review ? review_own_access(ctx, body, who)
                                              : review_self(who, format_rfc3339(std::chrono::system_clock::now()));
    if (code == 201 && body.is_object()) {
      // handlers/create.go records a review's fields as any create's, though nothing is stored.
      auto manager = manager_of(req.has_param("fieldManager") ? req.get_param_value("fieldManager") : "",
                                req.get_header_value("User-Agent"));
      json sent = body;
      sent["metadata"] = json::object();
      record_update(sent, json::object(), {manager, segs[1] + "/v1", "", false});
      if (sent["metadata"].contains("managedFields"))
        answer["metadata"]["managedFields"] = sent["metadata"]["managedFields"];
    }
    send(res, code, answer);
    return true;
  }

  /// `user_name` receives who the request was authenticated as, for the audit, and
  /// `eviction` the decision on a pod eviction.
  void handle(const httplib::Request& req, httplib::Response& res, std::string& user_name,
              std::optional<eviction_outcome>& eviction) {
    if (is_public_path(req.path)) {
      res.set_content("ok", "text/plain");
      return;
    }
    auto user = authenticate(req);
    if (!user) {
      send(res, 401, status_failure(401, "Unauthorized", "Unauthorized"));
      return;
    }
    user_name = user->name.empty() ? std::string{"system:admin"} : user->name;
    request_user_scope as_user{user_name};
    if (!user->name.empty()) {
      auto denial = denial_of(options.authorization, store, *user, req);
      if (!denial.is_null()) {
        send(res, 403, denial);
        return;
      }
    }
    // kube-apiserver reads at most this much of a write's body (apiserver
    // pkg/endpoints/handlers/rest.go limitedReadBody, MaxRequestBodyBytes).
    constexpr std::size_t max_request_body = 3 * 1024 * 1024;
    if ((req.method == "POST" || req.method == "PUT" || req.method == "PATCH") && req.body.size() > max_request_body) {
      send(res, 413, status_failure(413, "RequestEntityTooLarge",
                                    "Request entity too large: limit is " + std::to_string(max_request_body)));
      return;
    }
    if (fault_injector::applies_to(req.path)) {
      if (options.faults.latency.count() > 0)
        std::this_thread::sleep_for(options.faults.latency);
      if (auto fault = faults.roll()) {
        if (fault->retry_after_seconds > 0)
          res.set_header("Retry-After", std::to_string(fault->retry_after_seconds));
        json details = nullptr;
        if (fault->retry_after_seconds > 0)
          details = {{"retryAfterSeconds", fault->retry_after_seconds}};
        send(res, fault->status, status_failure(fault->status, fault->reason, fault->message, details));
        return;
      }
      if (options.broken_answers)
        if (auto held = options.broken_answers->take_hold("api", req.method, req.path, is_watch(req)))
          std::this_thread::sleep_for(held->hold);
      if (options.broken_answers)
        if (auto broken = options.broken_answers->take("api", req.method, req.path, is_watch(req)))
          return send_answer_fault(*broken, res);
    }
    auto segs = split_path(req.path);
    if (segs.empty()) {
      send(res, 200, {{"paths", {"/api", "/api/v1", "/apis", "/version", "/healthz", "/openapi/v2"}}});
      return;
    }
    if (segs[0] == "version" && segs.size() == 1) {
      send(res, 200, version_info());
      return;
    }
    if (segs[0] == "openapi") {
      // An empty v2 document; v3 documents for the custom resources only, so kubectl
      // finds no schema for a built-in kind and skips its client-side validation.
      json document;
      if (segs.size() == 2 && segs[1] == "v2") {
        res.status = 200;
        res.set_content("", "application/octet-stream");
        return;
      }
      if (segs.size() == 2 && segs[1] == "v3")
        document = openapi_v3_index(store);
      else if (segs.size() == 5 && segs[1] == "v3" && segs[2] == "apis")
        document = openapi_v3_document(store, segs[3], segs[4]);
      if (document.is_null())
        send(res, 404, status_failure(404, "NotFound", "the server could not find the requested resource"));
      else
        send(res, 200, document);
      return;
    }
    if (segs[0] == "admin") {
      handle_admin(req, res, segs);
      return;
    }
    if (serve_review(req, res, segs, *user))
      return;
    bool aggregated = segs.size() == 1 && req.method == "GET" && (segs[0] == "api" || segs[0] == "apis")
                      && wants_aggregated_discovery(req.get_header_value("Accept"));
    if (aggregated) {
      res.status = 200;
      res.set_header("Vary", "Accept");
      res.set_content(aggregated_discovery(registry, segs[0] == "api").dump(), aggregated_discovery_type);
      return;
    }
    if (segs[0] == "api") {
      if (segs.size() == 1 && req.method == "GET")
        return send(res, 200, registry.api_versions());
      if (segs.size() == 2 && req.method == "GET") {
        auto list = registry.resource_list("", segs[1]);
        if (!list.is_null())
          return send(res, 200, list);
      }
      if (segs.size() >= 3)
        return handlers.serve(req, res, "", segs[1], {segs.begin() + 2, segs.end()}, &eviction);
    } else if (segs[0] == "apis") {
      if (segs.size() == 1 && req.method == "GET")
        return send(res, 200, registry.api_group_list());
      if (segs.size() == 2 && req.method == "GET") {
        auto group = registry.api_group(segs[1]);
        if (!group.is_null())
          return send(res, 200, group);
      }
      if (segs.size() == 3 && req.method == "GET") {
        auto list = registry.resource_list(segs[1], segs[2]);
        if (!list.is_null())
          return send(res, 200, list);
      }
      if (segs.size() >= 4)
        return handlers.serve(req, res, segs[1], segs[2], {segs.begin() + 3, segs.end()}, &eviction);
    }
    send(res, 404, status_failure(404, "NotFound", "the server could not find the requested resource"));
  }

  void handle_admin(const httplib::Request& req, httplib::Response& res,
                    const std::vector<std::string>& segs) {
    if (segs.size() == 2 && segs[1] == "audit" && req.method == "GET")
      return serve_audit(req, res);
    if (segs.size() == 2 && segs[1] == "answer-faults")
      return serve_answer_fault_rules(options.broken_answers.get(), req, res);
    if (segs.size() == 2 && segs[1] == "compact" && req.method == "POST") {
      // What `etcdctl compact <current revision>` does to a real cluster's storage.
      auto revision = store.resource_version();
      handlers.compact(revision);
      return send(res, 200, {{"compactedRevision", std::to_string(revision)}});
    }
    if (segs.size() == 2 && segs[1] == "partitions")
      return serve_partition_rules(options.partitions.get(), req, res);
    if (segs.size() == 2 && segs[1] == "failover" && req.method == "POST") {
      failover_handler handler;
      {
        std::lock_guard<std::mutex> guard(failover_mtx);
        handler = failover;
      }
      return serve_failover(handler, req, res);
    }
    if (segs.size() == 2 && segs[1] == "drain" && req.method == "POST") {
      drain_handler handler;
      {
        std::lock_guard<std::mutex> guard(failover_mtx);
        handler = drain;
      }
      return serve_drain(handler, req, res);
    }
    send(res, 404, status_failure(404, "NotFound", "no such admin endpoint"));
  }

  /// A request from a cut-off client never reaches the server: it is held unanswered
  /// (neither handled nor audited) until the partition ends, so the client's own timeout
  /// is what it sees. Then the connection is cut: a 504 status line and none of the body
  /// it promises, for a client that waited that long (no client takes it for an answer).
  void hold_unanswered(const std::string& user_agent, httplib::Response& res) {
    options.partitions->count_held(user_agent, std::chrono::steady_clock::now());
    while (!stopping) {
      auto now = std::chrono::steady_clock::now();
      auto until = options.partitions->cut_until(user_agent, now);
      if (!until)
        break;
      std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(*until - now, std::chrono::milliseconds(50)));
    }
    res.status = 504;
    res.set_header("Connection", "close");
    res.set_content_provider(64, "application/json",
                             [](size_t, size_t, httplib::DataSink&) { return false; });
  }

  /// GET /admin/audit[?since=N]: N is an absolute write index; only writes from it on are
  /// listed (VMIM records always in full). X-Audit-Next-Since is the N that lists only
  /// later writes; X-Audit-Dropped-{Vmims,Writes} count records the memory caps dropped.
  void serve_audit(const httplib::Request& req, httplib::Response& res) {
    uint64_t since = 0;
    if (req.has_param("since")) {
      auto text = req.get_param_value("since");
      try {
        std::size_t used = 0;
        since = std::stoull(text, &used);
        if (used != text.size())
          throw std::invalid_argument("trailing");
      } catch (...) {
        return send(res, 400, status_failure(400, "BadRequest", "invalid since \"" + text + "\""));
      }
    }
    uint64_t next = 0;
    auto body = audit->to_json(since, &next);
    res.set_header("X-Audit-Next-Since", std::to_string(next));
    res.set_header("X-Audit-Dropped-Vmims", std::to_string(audit->vmims_dropped()));
    res.set_header("X-Audit-Dropped-Writes", std::to_string(audit->writes_dropped()));
    res.set_header("X-Audit-Dropped-Pod-Records", std::to_string(audit->pod_records_dropped()));
    send(res, 200, body);
  }

  void record_eviction(const audit_write& write, const std::string& user, const eviction_outcome& decided) {
    audit_eviction e;
    e.time = write.time;
    e.identity = write.identity;
    e.user = user;
    e.ns = write.ns;
    e.pod = write.name;
    e.pod_uid = decided.pod_uid;
    e.node = decided.node;
    e.pod_ready = decided.pod_ready;
    e.code = write.code;
    e.outcome = decided.outcome;
    e.pdb = decided.pdb;
    e.disruptions_allowed = decided.disruptions_allowed;
    e.budget_decremented = decided.budget_decremented;
    e.dry_run = decided.dry_run;
    audit->record_eviction(std::move(e));
  }

  /// Every mutating request is served under its client's identity (so VMIMs it creates
  /// are credited to it) and recorded with the code it got, rejections included.
  void serve(const httplib::Request& req, httplib::Response& res) {
    if (options.partitions) {
      auto agent = req.get_header_value("User-Agent");
      if (options.partitions->cut_until(agent, std::chrono::steady_clock::now()))
        return hold_unanswered(agent, res);
    }
    bool mutating = !audit_verb(req.method).empty();
    std::optional<client_identity_scope> identity;
    if (mutating)
      identity.emplace(req.get_header_value("User-Agent"));
    std::string user;
    std::optional<eviction_outcome> eviction;
    try {
      handle(req, res, user, eviction);
    } catch (const std::exception& e) {
      send(res, 500, status_failure(500, "InternalError", std::string{"Internal error occurred: "} + e.what()));
    }
    if (mutating) {
      auto write = describe_write(req, res, registry);
      if (eviction)
        record_eviction(write, user, *eviction);
      write.user = std::move(user);
      audit->record_write(std::move(write));
    }
    if (mutating && (res.status > 0 ? res.status : 200) / 100 == 2 && options.broken_answers
        && fault_injector::applies_to(req.path)
        && options.broken_answers->take_after_commit("api", req.method, req.path))
      return reset_connection(req); // stored and audited, never answered
    answer_in_protobuf(req, res);
  }
};

api_server::api_server(object_store& store, resource_registry registry, api_server_options options)
  : impl_(std::make_unique<impl>(store, std::move(registry), std::move(options))) {}

api_server::~api_server() {
  stop();
}

expected<bool> api_server::start(const tls_material& tls) {
  auto server = make_tls_server(tls, "API server");
  if (!server)
    return server.err();
  impl_->server = std::move(*server);
  auto& svr = *impl_->server;
  serve_like_an_api_server(svr, static_cast<std::size_t>(impl_->options.threads),
                           [this](const httplib::Request& req, httplib::Response& res) { impl_->serve(req, res); });
  int port = bind_with_go_backlog(svr, impl_->options.host, impl_->options.port);
  if (port <= 0)
    return make_error(ec::transport_error, "cannot listen on " + impl_->options.host + ":"
                                             + std::to_string(impl_->options.port));
  impl_->bound_port = port;
  impl_->thread = start_listening(*impl_->server);
  if (impl_->options.compaction_interval.count() > 0)
    impl_->compactor = std::thread([this] { impl_->run_compactor(); });
  return true;
}

void api_server::stop() {
  if (!impl_ || !impl_->server)
    return;
  {
    std::lock_guard<std::mutex> guard(impl_->compactor_mtx);
    impl_->stopping = true;
  }
  impl_->compactor_wake.notify_all();
  impl_->store.notify_all();
  impl_->server->stop();
  if (impl_->thread.joinable())
    impl_->thread.join();
  if (impl_->compactor.joinable())
    impl_->compactor.join();
  impl_->server.reset();
}

int api_server::port() const {
  return impl_->bound_port;
}

std::string api_server::url() const {
  return "https://" + impl_->options.host + ":" + std::to_string(impl_->bound_port);
}

void api_server::set_drain_handler(drain_handler handler) {
  std::lock_guard<std::mutex> guard(impl_->failover_mtx);
  impl_->drain = std::move(handler);
}

void api_server::set_failover_handler(failover_handler handler) {
  std::lock_guard<std::mutex> guard(impl_->failover_mtx);
  impl_->failover = std::move(handler);
}

} // namespace schedopt::sim
