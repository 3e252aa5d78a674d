// Malformed answers on demand (docs/testing.md): the next N requests matching a
// server, method and path prefix get an HTML page, a body that is not JSON, a body cut off
// mid-way, a watch event cut off or longer than any client buffers, or (Portworx gateway)
// a replica on a node nobody knows; or a write is stored and its answer lost. Set through POST /admin/answer-faults, so one running
// simulator can break one thing at a time while everything else answers normally.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/error.hpp"

namespace schedopt::sim {

enum class answer_fault_kind {
  html,                  // `status` (default 502) with an nginx-style HTML page
  not_json,              // 200, Content-Type application/json, a body that is not JSON
  close_mid_body,        // 200 with a Content-Length, half the body, then the connection closes
  truncated_watch_event, // a watch stream whose first event stops mid-line, then closes
  oversized_watch_event, // a watch stream whose first line runs `bytes` long without a newline
  unknown_replica_node,  // Portworx volume inspects: one more replica on node id `node`
  reset_after_commit,    // a write is served and stored, then the connection drops unanswered
  hold,                  // the request waits `hold`, then is served (or broken) as usual
};

struct answer_fault {
  int id = 0;
  std::string server = "api"; // "api" (the API server) or "portworx" (the SDK gateway)
  std::string method;         // empty: any
  std::string path_prefix;    // matched against the path without the query
  std::optional<bool> watch;  // set: only watch requests (true) or only others (false)
  answer_fault_kind kind = answer_fault_kind::html;
  int status = 502;                           // html only
  std::size_t bytes = 65 * 1024 * 1024;       // oversized_watch_event only
  std::string node = "px-node-unknown";       // unknown_replica_node only
  std::chrono::milliseconds hold{0};          // hold only ("holdMs")
  int remaining = 1;                          // matching requests still to break
  int fired = 0;
};

/// A rule from its admin JSON: {"kind":"html","path":"/apis/...","count":1,...}.
expected<answer_fault> answer_fault_from_json(const nlohmann::json& body);
nlohmann::json to_json(const answer_fault& fault);
const char* kind_name(answer_fault_kind kind);

class answer_faults {
public:
  /// Adds a rule; returns it with its id.
  answer_fault add(answer_fault fault);
  /// The first replacing rule (every kind but unknown_replica_node) with requests left
  /// that matches, counted as fired once more.
  std::optional<answer_fault> take(const std::string& server, const std::string& method,
                                   const std::string& path, bool watch);
  /// The same for unknown_replica_node, which edits the real answer instead.
  std::optional<answer_fault> take_rewrite(const std::string& method, const std::string& path);
  /// The same for reset_after_commit, asked once a write was served with a 2xx (stored).
  std::optional<answer_fault> take_after_commit(const std::string& server, const std::string& method,
                                                const std::string& path);
  /// The same for hold, which delays the real answer: a request that reaches storage
  /// only after requests sent later (a client's write overtaken by a delete and a
  /// re-create, as a slow network or a long apiserver queue can do).
  std::optional<answer_fault> take_hold(const std::string& server, const std::string& method,
                                        const std::string& path, bool watch);
  std::vector<answer_fault> list() const;
  void clear();

private:
  std::optional<answer_fault> take_if(const std::string& server, const std::string& method,
                                      const std::string& path, bool watch, bool rewrite);

  mutable std::mutex mtx_;
  std::vector<answer_fault> rules_;
  int next_id_ = 1;
};

} // namespace schedopt::sim
