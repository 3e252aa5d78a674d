// POST /admin/failover[?node=NAME] as serve's (sim/api_server.cpp): {"request": name}.
// POST /admin/drain is refused in words: drains on a real API server are kubectl's.
#include "sim/attach_admin.hpp"

#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "sim/api_server_status.hpp"
#include "sim/world.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

struct attach_admin::impl {
  world& simulated;
  httplib::Server server;
  std::thread thread;

  explicit impl(world& w) : simulated(w) {}

  static void send(httplib::Response& res, int code, const json& body) {
    res.status = code;
    res.set_content(body.dump(), "application/json");
  }

  void routes() {
    server.Post("/admin/failover", [this](const httplib::Request& req, httplib::Response& res) {
      auto result = simulated.failover(req.has_param("node") ? req.get_param_value("node") : std::string{});
      if (!result) {
        int code = status_code_of(result.err());
        return send(res, code, status_failure(code, status_reason(code, result.err().code), result.err().message));
      }
      send(res, 200, {{"request", *result}});
    });
    server.Post("/admin/drain", [](const httplib::Request&, httplib::Response& res) {
      send(res, 501, status_failure(501, "NotImplemented", "attach does not drain nodes: drain with kubectl"));
    });
    server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (res.status == 404)
        send(res, 404, status_failure(404, "NotFound", "no such admin endpoint"));
    });
  }
};

attach_admin::attach_admin(world& w) : impl_(std::make_unique<impl>(w)) {}

attach_admin::~attach_admin() { stop(); }

expected<std::string> attach_admin::start() {
  impl_->routes();
  int port = impl_->server.bind_to_any_port("127.0.0.1");
  if (port <= 0)
    return make_error(ec::transport_error, "the admin endpoint cannot listen on 127.0.0.1");
  impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
  return "http://127.0.0.1:" + std::to_string(port);
}

void attach_admin::stop() {
  if (!impl_->thread.joinable())
    return;
  impl_->server.stop();
  impl_->thread.join();
}

} // namespace schedopt::sim
