// See partitions.hpp.
#include "sim/partitions.hpp"

#include <algorithm>

#include "model/duration.hpp"

namespace schedopt::sim {

namespace {

bool cuts(const partition_rule& r, const std::string& user_agent,
          std::chrono::steady_clock::time_point now) {
  return now >= r.start && now < r.end && user_agent.find(r.user_agent) != std::string::npos;
}

expected<duration> duration_field(const nlohmann::json& body, const char* key, duration fallback) {
  if (!body.contains(key))
    return fallback;
  if (!body[key].is_string())
    return make_error(ec::invalid_value, std::string{key} + " must be a Go duration string");
  return parse_go_duration(body[key].get<std::string>());
}

} // namespace

expected<partition_rule> partition_rule_from_json(const nlohmann::json& body,
                                                  std::chrono::steady_clock::time_point now) {
  if (!body.is_object())
    return make_error(ec::invalid_value, "want a JSON object {\"userAgent\":...,\"for\":...}");
  if (!body.contains("userAgent") || !body["userAgent"].is_string()
      || body["userAgent"].get<std::string>().empty())
    return make_error(ec::invalid_value, "userAgent must be a non-empty string");
  auto after = duration_field(body, "after", duration::zero());
  if (!after)
    return after.err();
  auto length = duration_field(body, "for", duration::zero());
  if (!length)
    return length.err();
  if (length->count() <= 0)
    return make_error(ec::invalid_value, "for must be a duration above 0");
  partition_rule r;
  r.user_agent = body["userAgent"].get<std::string>();
  r.start = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(*after);
  r.end = r.start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(*length);
  return r;
}

nlohmann::json to_json(const partition_rule& rule, std::chrono::steady_clock::time_point now) {
  auto from_now = [&](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count();
  };
  return {{"id", rule.id},
          {"userAgent", rule.user_agent},
          {"startsInMs", from_now(rule.start)},
          {"endsInMs", from_now(rule.end)},
          {"active", now >= rule.start && now < rule.end},
          {"held", rule.held}};
}

partition_rule network_partitions::add(partition_rule rule) {
  std::lock_guard<std::mutex> guard(mtx_);
  rule.id = next_id_++;
  rules_.push_back(rule);
  return rule;
}

std::optional<network_partitions::time_point> network_partitions::cut_until(const std::string& user_agent,
                                                            time_point now) const {
  std::lock_guard<std::mutex> guard(mtx_);
  std::optional<time_point> until;
  for (const auto& r : rules_)
    if (cuts(r, user_agent, now))
      until = std::max(until.value_or(r.end), r.end);
  return until;
}

void network_partitions::count_held(const std::string& user_agent, time_point now) {
  std::lock_guard<std::mutex> guard(mtx_);
  for (auto& r : rules_)
    if (cuts(r, user_agent, now))
      ++r.held;
}

std::vector<partition_rule> network_partitions::list() const {
  std::lock_guard<std::mutex> guard(mtx_);
  return rules_;
}

void network_partitions::clear() {
  std::lock_guard<std::mutex> guard(mtx_);
  rules_.clear();
}

} // namespace schedopt::sim
