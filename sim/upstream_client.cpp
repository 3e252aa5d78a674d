// Requests as client-go's REST client makes them: JSON bodies, the kubeconfig's bearer
// token, the server's Status turned into an error with its HTTP status, lists in pages
// of 500 with `continue`, watches with bookmarks and a server-side timeout.
#include "sim/upstream_client.hpp"

#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

#include <httplib.h>
#include <openssl/evp.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include "sim/object_store.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

std::string url_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
      out += static_cast<char>(c);
    else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

/// apimachinery's StatusError: the HTTP status picks the code, the Status its message.
error status_error(int http_status, const std::string& body, const std::string& what) {
  auto status = json::parse(body, nullptr, false);
  std::string message = status.is_object() ? status.value("message", std::string{}) : std::string{};
  std::string reason = status.is_object() ? status.value("reason", std::string{}) : std::string{};
  if (message.empty())
    message = what + " answered " + std::to_string(http_status) + (body.empty() ? "" : ": " + body.substr(0, 200));
  ec code = ec::invalid_request;
  if (http_status == 404)
    code = ec::not_found;
  else if (http_status == 409)
    code = reason == "AlreadyExists" ? ec::already_exists : ec::conflict;
  else if (http_status == 410)
    code = ec::gone;
  else if (http_status == 429)
    code = ec::too_many_requests;
  else if (http_status == 401 || http_status == 403)
    code = ec::unauthorized;
  else if (http_status >= 500)
    code = ec::server_error;
  return make_error(code, message, http_status);
}

std::string scalar(const YAML::Node& node, const char* key) {
  return node && node[key] && node[key].IsScalar() ? node[key].as<std::string>() : std::string{};
}

/// The entry of `list` (clusters, users, contexts) called `name`.
YAML::Node named(const YAML::Node& list, const std::string& name, const char* inner) {
  if (list && list.IsSequence())
    for (const auto& entry : list)
      if (scalar(entry, "name") == name)
        return entry[inner];
  return YAML::Node();
}

} // namespace

std::string collection_path(const resource_type& type, const std::string& ns) {
  std::string path = type.group.empty() ? "/api/" + type.version : "/apis/" + type.group + "/" + type.version;
  if (type.namespaced && !ns.empty())
    path += "/namespaces/" + ns;
  return path + "/" + type.plural;
}

std::string object_path(const resource_type& type, const std::string& ns, const std::string& name) {
  return collection_path(type, ns) + "/" + name;
}

expected<upstream_endpoint> read_kubeconfig(const std::string& path) {
  auto bad = [&](const std::string& why) {
    return make_error(ec::config_error, "kubeconfig " + path + ": " + why);
  };
  YAML::Node config;
  try {
    config = YAML::LoadFile(path);
  } catch (const std::exception& e) {
    return bad(e.what());
  }
  auto context_name = scalar(config, "current-context");
  if (context_name.empty())
    return bad("no current-context");
  auto context = named(config["contexts"], context_name, "context");
  if (!context)
    return bad("context \"" + context_name + "\" not found");
  auto cluster = named(config["clusters"], scalar(context, "cluster"), "cluster");
  auto user = named(config["users"], scalar(context, "user"), "user");
  if (!cluster)
    return bad("cluster \"" + scalar(context, "cluster") + "\" not found");
  upstream_endpoint out;
  out.server = scalar(cluster, "server");
  if (out.server.rfind("https://", 0) != 0)
    return bad("cluster server must be an https:// URL");
  auto base = path.substr(0, path.rfind('/') + 1);
  auto relative_to_config = [&](std::string file) { return !file.empty() && file[0] != '/' ? base + file : file; };
  out.ca_file = relative_to_config(scalar(cluster, "certificate-authority"));
  if (auto data = scalar(cluster, "certificate-authority-data"); !data.empty()) {
    std::string pem(data.size(), '\0');
    int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(pem.data()),
                            reinterpret_cast<const unsigned char*>(data.data()), static_cast<int>(data.size()));
    if (n < 0)
      return bad("cluster certificate-authority-data is not base64");
    pem.resize(static_cast<std::size_t>(n));
    while (!pem.empty() && pem.back() == '\0') // what the padding decoded to
      pem.pop_back();
    out.ca_file = "/tmp/schedopt-sim-attach-ca-" + std::to_string(::getpid()) + ".crt";
    std::ofstream(out.ca_file) << pem;
  }
  out.token = scalar(user, "token");
  if (auto file = relative_to_config(scalar(user, "tokenFile")); out.token.empty() && !file.empty()) {
    std::ifstream in(file);
    std::getline(in, out.token);
  }
  if (out.token.empty())
    return bad("user \"" + scalar(context, "user") + "\" has no token or tokenFile (the simulator "
               "authenticates with a bearer token)");
  return out;
}

struct upstream_client::impl {
  upstream_endpoint endpoint;
  std::string user_agent;
  std::mutex mtx;
  std::vector<std::unique_ptr<httplib::Client>> idle; // keep-alive connections
  std::set<httplib::Client*> watching;               // what cancel_watches() stops

  std::unique_ptr<httplib::Client> connect() {
    auto client = std::make_unique<httplib::Client>(endpoint.server);
    if (!endpoint.ca_file.empty())
      client->set_ca_cert_path(endpoint.ca_file.c_str());
    client->enable_server_certificate_verification(true);
    client->set_bearer_token_auth(endpoint.token.c_str());
    client->set_keep_alive(true);
    // A request goes out as headers then body: without it, Nagle's algorithm holds the
    // body for the server's delayed ACK, some 40 ms a write.
    client->set_tcp_nodelay(true);
    client->set_connection_timeout(10);
    client->set_read_timeout(60);
    client->set_write_timeout(60);
    client->set_default_headers({{"User-Agent", user_agent}, {"Accept", "application/json"}});
    return client;
  }

  std::unique_ptr<httplib::Client> take() {
    std::lock_guard<std::mutex> guard(mtx);
    if (idle.empty())
      return connect();
    auto client = std::move(idle.back());
    idle.pop_back();
    return client;
  }

  void give_back(std::unique_ptr<httplib::Client> client) {
    std::lock_guard<std::mutex> guard(mtx);
    idle.push_back(std::move(client));
  }
};

upstream_client::upstream_client(upstream_endpoint endpoint, std::string user_agent)
  : impl_(std::make_unique<impl>()) {
  impl_->endpoint = std::move(endpoint);
  impl_->user_agent = std::move(user_agent);
}

upstream_client::~upstream_client() = default;

expected<json> upstream_client::call(const std::string& method, const std::string& path,
                                     const std::string& body, const std::string& content_type) {
  auto client = impl_->take();
  httplib::Request req;
  req.method = method;
  req.path = path;
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    req.body = body;
    req.set_header("Content-Type", content_type);
  }
  auto result = client->send(req);
  if (!result)
    return make_error(ec::transport_error, method + " " + path + ": " + httplib::to_string(result.error()));
  impl_->give_back(std::move(client));
  if (result->status < 200 || result->status >= 300)
    return status_error(result->status, result->body, method + " " + path);
  auto parsed = json::parse(result->body, nullptr, false);
  if (parsed.is_discarded())
    return make_error(ec::parse_error, method + " " + path + ": the answer is not JSON");
  return parsed;
}

expected<json> upstream_client::create(const resource_type& type, const json& object) {
  return call("POST", collection_path(type, object.value("/metadata/namespace"_json_pointer, std::string{})),
              object.dump());
}

expected<json> upstream_client::update(const resource_type& type, const json& object, bool status_only) {
  auto path = object_path(type, object.value("/metadata/namespace"_json_pointer, std::string{}),
                          object.value("/metadata/name"_json_pointer, std::string{}));
  // A type without a status subresource keeps .status in the main resource.
  if (status_only && type.status_subresource)
    path += "/status";
  return call("PUT", path, object.dump());
}

expected<json> upstream_client::get(const resource_type& type, const std::string& ns, const std::string& name) {
  return call("GET", object_path(type, ns, name));
}

expected<json> upstream_client::post_subresource(const resource_type& type, const std::string& ns,
                                                 const std::string& name, const std::string& subresource,
                                                 const json& body) {
  return call("POST", object_path(type, ns, name) + "/" + subresource, body.dump());
}

expected<std::optional<json>> upstream_client::remove(const resource_type& type, const std::string& ns,
                                                      const std::string& name, int64_t grace_seconds) {
  std::string body;
  if (grace_seconds >= 0)
    body = json{{"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"gracePeriodSeconds", grace_seconds}}.dump();
  auto answer = call("DELETE", object_path(type, ns, name), body);
  if (!answer)
    return answer.err();
  // registry/generic/registry/store.go Delete: the object while it stays (finalizers,
  // graceful deletion), else a Status or the object as deleted.
  if (answer->value("kind", std::string{}) == "Status")
    return std::optional<json>{};
  if (answer->contains("metadata") && (*answer)["metadata"].contains("deletionTimestamp")) {
    auto again = get(type, ns, name);
    if (again)
      return std::optional<json>(*again);
    if (again.err().code == ec::not_found)
      return std::optional<json>{};
    return again.err();
  }
  return std::optional<json>{};
}

expected<upstream_list> upstream_client::list(const resource_type& type) {
  upstream_list out;
  std::string next;
  do {
    auto page = call("GET", collection_path(type) + "?limit=500" + (next.empty() ? "" : "&continue=" + url_escape(next)));
    if (!page)
      return page.err();
    for (auto& item : (*page)["items"]) {
      // Lists carry the type once; objects read alone and watched carry it each.
      item["apiVersion"] = type.api_version();
      item["kind"] = type.kind;
      out.items.push_back(std::move(item));
    }
    out.resource_version = page->value("/metadata/resourceVersion"_json_pointer, std::string{});
    next = page->value("/metadata/continue"_json_pointer, std::string{});
  } while (!next.empty());
  return out;
}

std::optional<error> upstream_client::watch(
  const resource_type& type, const std::string& resource_version,
  const std::function<bool(const std::string& type, json object)>& on_event, const std::atomic<bool>& stop) {
  auto client = impl_->connect();
  // The server ends the watch after timeoutSeconds; cancel_watches() ends it sooner.
  client->set_read_timeout(75);
  {
    std::lock_guard<std::mutex> guard(impl_->mtx);
    if (stop)
      return std::nullopt;
    impl_->watching.insert(client.get());
  }
  auto path = collection_path(type) + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=60&resourceVersion="
              + url_escape(resource_version);
  std::string pending;
  std::optional<error> failure;
  int status = 0;
  auto result = client->Get(
    path,
    [&](const httplib::Response& response) {
      status = response.status;
      return true;
    },
    [&](const char* data, size_t size) {
      if (stop)
        return false;
      pending.append(data, size);
      for (auto newline = pending.find('\n'); newline != std::string::npos; newline = pending.find('\n')) {
        auto line = pending.substr(0, newline);
        pending.erase(0, newline + 1);
        if (status != 200) {
          failure = status_error(status, line, "watch " + type.key());
          return false;
        }
        auto event = json::parse(line, nullptr, false);
        if (!event.is_object())
          continue;
        auto kind = event.value("type", std::string{});
        if (kind == "ERROR") {
          auto code = event.value("/object/code"_json_pointer, 500);
          failure = status_error(code, event["object"].dump(), "watch " + type.key());
          return false;
        }
        if (!on_event(kind, std::move(event["object"])))
          return false;
      }
      return !stop;
    });
  {
    std::lock_guard<std::mutex> guard(impl_->mtx);
    impl_->watching.erase(client.get());
  }
  if (failure)
    return failure;
  if (stop)
    return std::nullopt;
  if (status != 0 && status != 200)
    return status_error(status, pending, "watch " + type.key());
  if (!result && result.error() != httplib::Error::Read && result.error() != httplib::Error::Canceled)
    return make_error(ec::transport_error, "watch " + type.key() + ": " + httplib::to_string(result.error()));
  return std::nullopt;
}

void upstream_client::cancel_watches() {
  std::lock_guard<std::mutex> guard(impl_->mtx);
  for (auto* client : impl_->watching)
    client->stop();
}

expected<json> upstream_client::apply(const std::string& path, const json& object, const std::string& field_manager,
                                      bool force) {
  return call("PATCH", path + "?fieldManager=" + url_escape(field_manager) + (force ? "&force=true" : ""),
              object.dump(), "application/apply-patch+yaml");
}

} // namespace schedopt::sim
