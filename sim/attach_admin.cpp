// The world's actions (sim/admin_world_actions) and the rule lists
// (sim/admin_fault_rules), answered as serve's API server answers them.
#include "sim/attach_admin.hpp"

#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "sim/admin_fault_rules.hpp"
#include "sim/admin_world_actions.hpp"
#include "sim/api_server_status.hpp"
#include "sim/world.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

struct attach_admin::impl {
  world& simulated;
  std::shared_ptr<answer_faults> answers;
  std::shared_ptr<network_partitions> partitions;
  httplib::Server server;
  std::thread thread;

  impl(world& w, std::shared_ptr<answer_faults> a, std::shared_ptr<network_partitions> p)
    : simulated(w), answers(std::move(a)), partitions(std::move(p)) {}

  void routes() {
    server.Post("/admin/failover", [this](const httplib::Request& req, httplib::Response& res) {
      serve_failover([this](const std::string& node) { return simulated.failover(node); }, req, res);
    });
    server.Post("/admin/drain", [this](const httplib::Request& req, httplib::Response& res) {
      serve_drain([this](const std::string& node) { return simulated.drain(node); }, req, res);
    });
    auto answer_rules = [this](const httplib::Request& req, httplib::Response& res) {
      serve_answer_fault_rules(answers.get(), req, res);
    };
    auto partition_rules = [this](const httplib::Request& req, httplib::Response& res) {
      serve_partition_rules(partitions.get(), req, res);
    };
    for (auto* route : {"/admin/answer-faults", "/admin/partitions"}) {
      auto handler = std::string{route} == "/admin/partitions" ? httplib::Server::Handler{partition_rules}
                                                                : httplib::Server::Handler{answer_rules};
      server.Get(route, handler);
      server.Post(route, handler);
      server.Delete(route, handler);
    }
    server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (res.status == 404)
        res.set_content(status_failure(404, "NotFound", "no such admin endpoint").dump(), "application/json");
    });
  }
};

attach_admin::attach_admin(world& w, std::shared_ptr<answer_faults> answers,
                           std::shared_ptr<network_partitions> partitions)
  : impl_(std::make_unique<impl>(w, std::move(answers), std::move(partitions))) {}

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
