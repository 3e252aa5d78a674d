#include "sim/admin_fault_rules.hpp"

#include <chrono>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "sim/answer_faults.hpp"
#include "sim/api_server_status.hpp"
#include "sim/partitions.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

} // namespace

void serve_answer_fault_rules(answer_faults* rules, const httplib::Request& req, httplib::Response& res) {
  if (!rules)
    return send_json(res, 503, status_failure(503, "ServiceUnavailable", "answer faults are not available"));
  if (req.method == "POST") {
    auto rule = answer_fault_from_json(json::parse(req.body, nullptr, false));
    if (!rule)
      return send_json(res, 400, status_failure(400, "BadRequest", rule.err().message));
    return send_json(res, 201, to_json(rules->add(*rule)));
  }
  if (req.method == "GET") {
    json listed = json::array();
    for (const auto& r : rules->list())
      listed.push_back(to_json(r));
    return send_json(res, 200, {{"rules", listed}});
  }
  if (req.method == "DELETE") {
    rules->clear();
    return send_json(res, 200, {{"rules", json::array()}});
  }
  send_json(res, 405, status_failure(405, "MethodNotAllowed", "GET, POST or DELETE"));
}

void serve_partition_rules(network_partitions* partitions, const httplib::Request& req, httplib::Response& res) {
  if (!partitions)
    return send_json(res, 503, status_failure(503, "ServiceUnavailable", "partitions are not available"));
  auto now = std::chrono::steady_clock::now();
  if (req.method == "POST") {
    auto rule = partition_rule_from_json(json::parse(req.body, nullptr, false), now);
    if (!rule)
      return send_json(res, 400, status_failure(400, "BadRequest", rule.err().message));
    return send_json(res, 201, to_json(partitions->add(*rule), now));
  }
  if (req.method == "GET") {
    json listed = json::array();
    for (const auto& r : partitions->list())
      listed.push_back(to_json(r, now));
    return send_json(res, 200, {{"partitions", listed}});
  }
  if (req.method == "DELETE") {
    partitions->clear();
    return send_json(res, 200, {{"partitions", json::array()}});
  }
  send_json(res, 405, status_failure(405, "MethodNotAllowed", "GET, POST or DELETE"));
}

} // namespace schedopt::sim
