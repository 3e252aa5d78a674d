// What a matched answer fault sends instead of the real answer (sim/answer_faults.hpp).
#pragma once

#include "sim/answer_faults.hpp"

namespace httplib {
struct Request;
struct Response;
}

namespace schedopt::sim {

/// Fills `res` with the broken answer of `fault` (not for unknown_replica_node, which
/// edits a real answer).
void send_answer_fault(const answer_fault& fault, httplib::Response& res);

/// reset_after_commit: closes the connection `req` came on with a TCP reset before any of
/// the answer is written; the server goes on as if it had answered.
void reset_connection(const httplib::Request& req);

} // namespace schedopt::sim
