// Network partitions between the API server and some of its clients: from a time, for a
// duration, every request whose User-Agent contains a string goes unanswered, and watch
// streams already open to such a client go silent. Set by `serve --partition-*` flags or
// at runtime through /admin/partitions, so a test can cut one replica off mid-run.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/error.hpp"

namespace schedopt::sim {

struct partition_rule {
  int id = 0;
  std::string user_agent; // a substring of the cut clients' User-Agent; never empty
  std::chrono::steady_clock::time_point start;
  std::chrono::steady_clock::time_point end;
  int held = 0; // requests held unanswered so far
};

/// A rule from its admin JSON: {"userAgent":"S","after":"0s","for":"10s"}; `after`
/// (default 0s) counts from `now`.
expected<partition_rule> partition_rule_from_json(const nlohmann::json& body,
                                                  std::chrono::steady_clock::time_point now);
nlohmann::json to_json(const partition_rule& rule, std::chrono::steady_clock::time_point now);

class network_partitions {
public:
  using time_point = std::chrono::steady_clock::time_point;

  partition_rule add(partition_rule rule);
  /// When the partition cutting a client with this User-Agent ends, if one cuts it at `now`.
  std::optional<time_point> cut_until(const std::string& user_agent, time_point now) const;
  /// Counts one more request held by the rule cutting `user_agent`.
  void count_held(const std::string& user_agent, time_point now);
  std::vector<partition_rule> list() const;
  /// Heals every partition at once.
  void clear();

private:
  mutable std::mutex mtx_;
  std::vector<partition_rule> rules_;
  int next_id_ = 1;
};

} // namespace schedopt::sim
