// POST /admin/failover[?node=NAME] and /admin/drain?node=NAME, the world's actions a test
// asks for; served alike by the simulator's API server and, attached, by attach's admin
// listener, so a test reads the same answers either way.
#pragma once

#include <functional>
#include <string>

#include "model/error.hpp"

namespace httplib {
struct Request;
struct Response;
}

namespace schedopt::sim {

using failover_action = std::function<expected<std::string>(const std::string& node)>;
using drain_action = std::function<expected<bool>(const std::string& node)>;

/// {"request": name} of the SchedulingOptimization the failover created; the error as a
/// Status; `failover` null: 503.
void serve_failover(const failover_action& failover, const httplib::Request& req, httplib::Response& res);

/// {"node": name, "draining": true}; 400 without ?node=; `drain` null: 503.
void serve_drain(const drain_action& drain, const httplib::Request& req, httplib::Response& res);

} // namespace schedopt::sim
