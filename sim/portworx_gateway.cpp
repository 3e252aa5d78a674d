// OpenStorage SDK REST shapes: field names are the proto names (grpc-gateway v1's
// default JSONPb{OrigName: true}), 64-bit integers are strings, zero values are omitted,
// errors are {"error","code","message","details"} with the gRPC code's HTTP status.
#include "sim/portworx_gateway.hpp"
#include "k8s/listen_thread.hpp"

#include <map>
#include <memory>
#include <optional>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "sim/answer_fault_responses.hpp"
#include "sim/portworx_volume_json.hpp"
#include "sim/listen_backlog.hpp"
#include "sim/storage_backend.hpp"
#include "sim/tls_server.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

// gRPC status codes used here and their grpc-gateway HTTP mapping.
constexpr int grpc_invalid_argument = 3;
constexpr int grpc_not_found = 5;
constexpr int grpc_unauthenticated = 16;

void send_error(httplib::Response& res, int grpc_code, int http_status, const std::string& message) {
  json body = {{"error", message}, {"code", grpc_code}, {"message", message}, {"details", json::array()}};
  res.status = http_status;
  res.set_content(body.dump(), "application/json");
}

// Through a sized content provider, which httplib does not compress: as body text it
// would brotli every answer for a client offering br (curl with CURLOPT_ACCEPT_ENCODING
// ""), which took longer than serving it, where grpc-gateway sends plain JSON.
void send_uncompressed(httplib::Response& res, std::string body) {
  res.status = 200;
  auto shared = std::make_shared<std::string>(std::move(body));
  res.set_content_provider(shared->size(), "application/json",
                           [shared](size_t offset, size_t length, httplib::DataSink& sink) {
                             sink.write(shared->data() + offset, length);
                             return true;
                           });
}

void send_json(httplib::Response& res, const json& body) {
  send_uncompressed(res, body.dump());
}

json node_json(const storage_node& n) {
  return {{"id", n.px_id},
          {"cpu", 3.5},
          {"cpu_cores", "8"},
          {"mem_total", "33554432000"},
          {"mem_used", "8388608000"},
          {"mem_free", "25165824000"},
          {"avg_load", "12"},
          {"status", "STATUS_OK"},
          {"pools",
           json::array({{{"uuid", n.pool_uuid},
                         {"Cos", "HIGH"},
                         {"Medium", "STORAGE_MEDIUM_SSD"},
                         {"RaidLevel", "raid0"},
                         {"TotalSize", "1099511627776"},
                         {"Used", "107374182400"},
                         {"labels", {{"medium", "STORAGE_MEDIUM_SSD"}, {"iopriority", "HIGH"}}}}})},
          {"mgmt_ip", n.ip},
          {"data_ip", n.ip},
          {"hostname", n.hostname},
          {"node_labels", {{"PX Version", "3.1.6.0-8a4c5b1"}}},
          {"scheduler_node_name", n.name}};
}

/// The volume inspect answer; `extra_node`: a replica node id to add that no node
/// enumerate names (an answer fault).
std::string volume_inspect_text(const storage_volume& v, const px_node_directory& nodes,
                                const std::optional<answer_fault>& extra_node) {
  std::string out;
  append_volume_inspect_json(out, v, nodes,
                             extra_node ? std::optional<std::string>{extra_node->node} : std::nullopt);
  return out;
}

// SdkVolumeInspectWithFiltersRequest {name, labels, ownership, group, options}: an
// absent or empty filter matches every volume. The simulator's volumes have no owner,
// so an ownership filter naming one matches none, as Portworx treats owned volumes.
struct volume_filter {
  std::string name;
  std::map<std::string, std::string> labels;
  std::string owner;

  bool matches(const storage_volume& v) const {
    if (v.driver != portworx_csi_driver)
      return false;
    if (!name.empty() && name != v.name)
      return false;
    if (!owner.empty())
      return false;
    for (const auto& [key, value] : labels) {
      if (key == "namespace" ? value != v.pvc_namespace
                             : key == "pvc" ? value != v.pvc_name : true)
        return false;
    }
    return true;
  }
};

expected<volume_filter> parse_volume_filter(const std::string& body) {
  volume_filter f;
  if (body.empty())
    return f;
  auto doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return make_error(ec::invalid_request, "unexpected request body: not a JSON object");
  try {
    if (auto i = doc.find("name"); i != doc.end() && !i->is_null())
      f.name = i->get<std::string>();
    if (auto i = doc.find("labels"); i != doc.end() && !i->is_null())
      f.labels = i->get<std::map<std::string, std::string>>();
    if (auto i = doc.find("ownership"); i != doc.end() && i->is_object())
      f.owner = i->value("owner", "");
  } catch (const json::exception& e) {
    return make_error(ec::invalid_request, std::string{"unexpected request body: "} + e.what());
  }
  return f;
}

} // namespace

/// Where a chunked inspectwithfilters answer is.
struct bulk_cursor {
  volume_filter filter;
  std::optional<std::string> extra;
  px_node_directory nodes;
  std::size_t next = 0; // storage index
  bool opened = false;  // `{"volumes":[` written: only once a volume matched
  bool done = false;
};

constexpr std::size_t volumes_per_chunk = 512;

struct portworx_gateway::impl {
  const storage_backend& storage;
  std::shared_ptr<answer_faults> faults;
  std::unique_ptr<httplib::Server> server; // an SSLServer with TLS; made by start()
  std::thread thread;
  std::string token;
  bool tls = false;
  int port = 0;

  explicit impl(const storage_backend& s) : storage(s) {}

  // grpc-gateway omits an empty repeated field, so an answer without volumes is `{}`:
  // the opening is written with the first volume that matches.
  bool write_volume_chunk(bulk_cursor& c, httplib::DataSink& sink) const {
    if (c.done)
      return false;
    std::string out;
    out.reserve(volumes_per_chunk * 1024); // a volume is ~850 bytes: no regrowth per chunk
    auto from = c.next;
    c.next = storage.for_each_volume(from, volumes_per_chunk, [&](const storage_volume& v) {
      if (!c.filter.matches(v))
        return;
      out += c.opened ? "," : R"({"volumes":[)";
      c.opened = true;
      append_volume_inspect_json(out, v, c.nodes, c.extra);
    });
    if (c.next == from) { // every volume written
      out += c.opened ? "]}" : "{}";
      c.done = true;
    }
    if (!out.empty() && !sink.write(out.data(), out.size()))
      return false;
    if (c.done)
      sink.done();
    return true;
  }

  std::optional<answer_fault> rewrite_of(const httplib::Request& req) const {
    return faults ? faults->take_rewrite(req.method, req.path) : std::nullopt;
  }

  void routes() {
    auto& server = *this->server;
    server.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      // grpc-gateway never compresses, and httplib would brotli a chunked answer (the
      // bulk inspect) for a client offering br, seconds per MB: the offer is dropped.
      // (The request is the server's own mutable object; httplib hands it out const.)
      const_cast<httplib::Request&>(req).headers.erase("Accept-Encoding");
      // With PX-Security on, every SDK call needs a token: openstorage
      // api/server/sdk/server_interceptors.go, sdkGrpcServer.auth, answers Unauthenticated
      // (HTTP 401 through grpc-gateway) before any handler runs.
      if (!token.empty() && req.get_header_value("Authorization") != "Bearer " + token) {
        send_error(res, grpc_unauthenticated, 401, "Invalid or missing authentication token");
        return httplib::Server::HandlerResponse::Handled;
      }
      // A slow gateway (a hold rule) answers as usual, later.
      if (auto held = faults ? faults->take_hold("portworx", req.method, req.path, false) : std::nullopt)
        std::this_thread::sleep_for(held->hold);
      if (auto broken = faults ? faults->take("portworx", req.method, req.path, false) : std::nullopt) {
        send_answer_fault(*broken, res);
        return httplib::Server::HandlerResponse::Handled;
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });
    server.Get("/v1/nodes", [this](const httplib::Request&, httplib::Response& res) {
      json ids = json::array();
      for (const auto& n : storage.nodes())
        ids.push_back(n.px_id);
      send_json(res, {{"node_ids", ids}});
    });
    server.Get("/v1/nodes/filters", [this](const httplib::Request&, httplib::Response& res) {
      json nodes = json::array();
      for (const auto& n : storage.nodes())
        nodes.push_back(node_json(n));
      send_json(res, {{"nodes", nodes}});
    });
    server.Get("/v1/nodes/inspectcurrent", [this](const httplib::Request&, httplib::Response& res) {
      auto nodes = storage.nodes();
      if (nodes.empty())
        return send_error(res, grpc_not_found, 404, "Id  not found");
      send_json(res, {{"node", node_json(nodes.front())}});
    });
    server.Get(R"(/v1/nodes/inspect/([^/]*))", [this](const httplib::Request& req, httplib::Response& res) {
      std::string id = req.matches[1];
      if (id.empty())
        return send_error(res, grpc_invalid_argument, 400, "Node id must be provided");
      auto n = storage.node_by_px_id(id);
      if (!n)
        return send_error(res, grpc_not_found, 404, "Id " + id + " not found");
      send_json(res, {{"node", node_json(*n)}});
    });
    server.Get("/v1/volumes", [this](const httplib::Request&, httplib::Response& res) {
      json ids = json::array();
      for (const auto& v : storage.volumes())
        ids.push_back(v.id);
      send_json(res, {{"volume_ids", ids}});
    });
    server.Get(R"(/v1/volumes/inspect/([^/]*))", [this](const httplib::Request& req, httplib::Response& res) {
      std::string id = req.matches[1];
      if (id.empty())
        return send_error(res, grpc_invalid_argument, 400, "Must supply volume id");
      auto v = storage.volume(id);
      if (!v)
        return send_error(res, grpc_not_found, 404, "Volume id " + id + " not found");
      send_uncompressed(res, volume_inspect_text(*v, px_node_directory_of(storage), rewrite_of(req)));
    });
    // One answer for every volume; at scale the body is hundreds of MB, so it is
    // written in chunks of volumes as the client reads (never built whole): the client
    // decodes the first volumes while the later ones are written.
    server.Post("/v1/volumes/inspectwithfilters", [this](const httplib::Request& req,
                                                         httplib::Response& res) {
      auto filter = parse_volume_filter(req.body);
      if (!filter)
        return send_error(res, grpc_invalid_argument, 400, filter.err().message);
      auto rewrite = rewrite_of(req);
      auto cursor = std::make_shared<bulk_cursor>();
      cursor->filter = std::move(*filter);
      cursor->extra = rewrite ? std::optional<std::string>{rewrite->node} : std::nullopt;
      cursor->nodes = px_node_directory_of(storage);
      res.status = 200;
      res.set_chunked_content_provider(
        "application/json", [this, cursor](size_t, httplib::DataSink& sink) {
          return write_volume_chunk(*cursor, sink);
        });
    });
    // Unrouted paths answer as grpc-gateway does for an unknown pattern.
    server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (res.status == 404 && res.body.empty())
        send_error(res, grpc_not_found, 404, "Not Found");
    });
  }
};

portworx_gateway::portworx_gateway(const storage_backend& storage)
  : impl_(std::make_unique<impl>(storage)) {}

void portworx_gateway::set_answer_faults(std::shared_ptr<answer_faults> faults) {
  impl_->faults = std::move(faults);
}

portworx_gateway::~portworx_gateway() {
  stop();
}

expected<int> portworx_gateway::start(int port, const std::string& token,
                                      std::optional<tls_material> tls) {
  if (impl_->thread.joinable())
    return make_error(ec::invalid_request, "Portworx SDK gateway already started");
  impl_->token = token;
  // openstorage api/server/sdk/rest_gateway.go, sdkRestGateway.Start: with
  // Security.Tls set the REST gateway calls ListenAndServeTLS on its usual port, else
  // ListenAndServe.
  if (tls) {
    auto server = make_tls_server(*tls, "Portworx SDK gateway");
    if (!server)
      return server.err();
    impl_->server = std::move(*server);
    impl_->tls = true;
  } else {
    impl_->server = std::make_unique<httplib::Server>();
  }
  impl_->routes();
  auto& server = *impl_->server;
  // schedopt keeps up to 32 SDK calls in flight over kept-alive connections; httplib's
  // default pool (8 workers, each held by an idle keep-alive connection for 5 s) would
  // stall the excess for seconds per batch.
  server.new_task_queue = [] { return new httplib::ThreadPool(64); };
  server.set_tcp_nodelay(true); // as the API server's (api_server.cpp)
  int bound = bind_with_go_backlog(server, "127.0.0.1", port);
  if (bound <= 0)
    return make_error(ec::transport_error,
                      "Portworx SDK gateway cannot listen on 127.0.0.1:" + std::to_string(port));
  impl_->port = bound;
  impl_->thread = start_listening(server);
  return bound;
}

void portworx_gateway::stop() {
  if (!impl_ || !impl_->thread.joinable())
    return;
  impl_->server->stop();
  impl_->thread.join();
}

int portworx_gateway::port() const {
  return impl_->port;
}

std::string portworx_gateway::url() const {
  return (impl_->tls ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(impl_->port);
}

} // namespace schedopt::sim
