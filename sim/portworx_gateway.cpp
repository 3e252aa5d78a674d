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
#include "sim/storage_backend.hpp"

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
// ""), 3 s for a 1.6 MB inspectwithfilters, where grpc-gateway sends plain JSON.
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

/// `extra_node`: a replica node id to add that no node enumerate names (an answer fault).
json volume_inspect_json(const storage_volume& v, const storage_backend& storage,
                         const std::optional<answer_fault>& extra_node = std::nullopt) {
  json nodes = json::array();
  json pools = json::array();
  for (const auto& name : v.replica_nodes) {
    auto n = storage.node_by_name(name);
    nodes.push_back(n ? n->px_id : name);
    pools.push_back(n ? n->pool_uuid : "");
  }
  if (extra_node) {
    nodes.push_back(extra_node->node);
    pools.push_back("");
  }
  json labels = {{"namespace", v.pvc_namespace}, {"pvc", v.pvc_name}};
  json volume = {
      {"id", v.id},
      {"locator", {{"name", v.name}, {"volume_labels", labels}}},
      {"ctime", "2026-01-01T00:00:00Z"},
      {"spec",
       {{"ha_level", std::to_string(v.replica_nodes.size())},
        {"size", std::to_string(v.size_bytes)},
        {"format", "FS_TYPE_EXT4"},
        {"block_size", "4096"},
        {"cos", "HIGH"},
        {"sharedv4", true},
        {"volume_labels", labels}}},
      {"usage", "1073741824"},
      {"format", "FS_TYPE_EXT4"},
      {"state", "VOLUME_STATE_ATTACHED"},
      {"status", "VOLUME_STATUS_UP"},
      {"replica_sets", json::array({{{"nodes", nodes}, {"pool_uuids", pools}}})},
      {"attached_state", "ATTACH_STATE_INTERNAL_SWITCH"}};
  return {{"volume", volume}, {"name", v.name}, {"labels", labels}};
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

struct portworx_gateway::impl {
  const storage_backend& storage;
  std::shared_ptr<answer_faults> faults;
  httplib::Server server;
  std::thread thread;
  std::string token;
  int port = 0;

  explicit impl(const storage_backend& s) : storage(s) {}

  std::optional<answer_fault> rewrite_of(const httplib::Request& req) const {
    return faults ? faults->take_rewrite(req.method, req.path) : std::nullopt;
  }

  void routes() {
    server.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      if (!token.empty() && req.get_header_value("Authorization") != "Bearer " + token) {
        send_error(res, grpc_unauthenticated, 401, "Invalid or missing authentication token");
        return httplib::Server::HandlerResponse::Handled;
      }
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
      send_json(res, volume_inspect_json(*v, storage, rewrite_of(req)));
    });
    // One answer for many volumes; at 200,000 volumes the body is ~150 MB, so it is
    // written volume by volume rather than built as one JSON document.
    server.Post("/v1/volumes/inspectwithfilters", [this](const httplib::Request& req,
                                                         httplib::Response& res) {
      auto filter = parse_volume_filter(req.body);
      if (!filter)
        return send_error(res, grpc_invalid_argument, 400, filter.err().message);
      auto rewrite = rewrite_of(req);
      std::string body = R"({"volumes":[)";
      bool first = true;
      for (const auto& v : storage.volumes()) {
        if (!filter->matches(v))
          continue;
        if (!first)
          body += ',';
        first = false;
        body += volume_inspect_json(v, storage, rewrite).dump();
      }
      body += "]}";
      if (first)
        body = "{}"; // grpc-gateway omits an empty repeated field
      send_uncompressed(res, std::move(body));
    });
    // Unrouted paths answer as grpc-gateway does for an unknown pattern.
    server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (res.status == 404 && res.body.empty())
        send_error(res, grpc_not_found, 404, "Not Found");
    });
  }
};

portworx_gateway::portworx_gateway(const storage_backend& storage)
  : impl_(std::make_unique<impl>(storage)) {
  impl_->routes();
}

void portworx_gateway::set_answer_faults(std::shared_ptr<answer_faults> faults) {
  impl_->faults = std::move(faults);
}

portworx_gateway::~portworx_gateway() {
  stop();
}

expected<int> portworx_gateway::start(int port, const std::string& token) {
  if (impl_->thread.joinable())
    return make_error(ec::invalid_request, "Portworx SDK gateway already started");
  impl_->token = token;
  // schedopt keeps up to 32 SDK calls in flight over kept-alive connections; httplib's
  // default pool (8 workers, each held by an idle keep-alive connection for 5 s) would
  // stall the excess for seconds per batch.
  impl_->server.new_task_queue = [] { return new httplib::ThreadPool(64); };
  int bound = port == 0 ? impl_->server.bind_to_any_port("127.0.0.1")
                        : (impl_->server.bind_to_port("127.0.0.1", port) ? port : -1);
  if (bound <= 0)
    return make_error(ec::transport_error,
                      "Portworx SDK gateway cannot listen on 127.0.0.1:" + std::to_string(port));
  impl_->port = bound;
  impl_->thread = start_listening(impl_->server);
  return bound;
}

void portworx_gateway::stop() {
  if (!impl_ || !impl_->thread.joinable())
    return;
  impl_->server.stop();
  impl_->thread.join();
}

int portworx_gateway::port() const {
  return impl_->port;
}

} // namespace schedopt::sim
