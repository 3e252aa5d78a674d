#include "sim/admin_world_actions.hpp"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "sim/api_server_status.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

void send_action_error(httplib::Response& res, const error& err) {
  int code = status_code_of(err);
  send_json(res, code, status_failure(code, status_reason(code, err.code), err.message));
}

} // namespace

void serve_failover(const failover_action& failover, const httplib::Request& req, httplib::Response& res) {
  if (!failover)
    return send_json(res, 503, status_failure(503, "ServiceUnavailable", "failover is not available"));
  auto result = failover(req.has_param("node") ? req.get_param_value("node") : std::string{});
  if (!result)
    return send_action_error(res, result.err());
  send_json(res, 200, {{"request", *result}});
}

void serve_drain(const drain_action& drain, const httplib::Request& req, httplib::Response& res) {
  if (!drain)
    return send_json(res, 503, status_failure(503, "ServiceUnavailable", "drain is not available"));
  auto node = req.has_param("node") ? req.get_param_value("node") : std::string{};
  if (node.empty())
    return send_json(res, 400, status_failure(400, "BadRequest", "POST /admin/drain needs ?node=NAME"));
  auto result = drain(node);
  if (!result)
    return send_action_error(res, result.err());
  send_json(res, 200, {{"node", node}, {"draining", true}});
}

} // namespace schedopt::sim
