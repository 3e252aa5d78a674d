// The answer-fault rule table and its admin JSON.
#include "sim/answer_faults.hpp"

#include <algorithm>

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

struct kind_entry {
  const char* name;
  answer_fault_kind kind;
};

constexpr kind_entry kinds[] = {
  {"html", answer_fault_kind::html},
  {"not-json", answer_fault_kind::not_json},
  {"close-mid-body", answer_fault_kind::close_mid_body},
  {"truncated-watch-event", answer_fault_kind::truncated_watch_event},
  {"oversized-watch-event", answer_fault_kind::oversized_watch_event},
  {"unknown-replica-node", answer_fault_kind::unknown_replica_node},
  {"reset-after-commit", answer_fault_kind::reset_after_commit},
  {"hold", answer_fault_kind::hold},
};

error bad(const std::string& what) {
  return make_error(ec::invalid_request, "answer fault: " + what);
}

} // namespace

const char* kind_name(answer_fault_kind kind) {
  for (const auto& k : kinds)
    if (k.kind == kind)
      return k.name;
  return "?";
}

expected<answer_fault> answer_fault_from_json(const json& body) {
  if (!body.is_object())
    return bad("the body must be a JSON object");
  answer_fault f;
  try {
    auto kind = body.value("kind", std::string{});
    auto found = std::find_if(std::begin(kinds), std::end(kinds),
                              [&](const kind_entry& k) { return kind == k.name; });
    if (found == std::end(kinds))
      return bad("unknown kind \"" + kind + "\"");
    f.kind = found->kind;
    f.server = body.value("server", std::string{"api"});
    if (f.server != "api" && f.server != "portworx")
      return bad("server must be \"api\" or \"portworx\"");
    f.method = body.value("method", std::string{});
    f.path_prefix = body.value("path", std::string{});
    if (f.path_prefix.empty() || f.path_prefix[0] != '/')
      return bad("path must start with /");
    if (body.contains("watch"))
      f.watch = body.at("watch").get<bool>();
    f.status = body.value("status", 502);
    if (f.status < 200 || f.status > 599)
      return bad("status must be 200-599");
    f.bytes = body.value("bytes", f.bytes);
    f.node = body.value("node", f.node);
    f.remaining = body.value("count", 1);
    if (f.remaining < 1)
      return bad("count must be at least 1");
    if (f.kind == answer_fault_kind::hold) {
      f.hold = std::chrono::milliseconds(body.value("holdMs", 0));
      if (f.hold.count() < 1 || f.hold.count() > 600000)
        return bad("holdMs must be 1-600000");
    }
  } catch (const json::exception& e) {
    return bad(e.what());
  }
  return f;
}

json to_json(const answer_fault& f) {
  json out = {{"id", f.id},         {"server", f.server}, {"method", f.method},
              {"path", f.path_prefix}, {"kind", kind_name(f.kind)}, {"remaining", f.remaining},
              {"fired", f.fired}};
  if (f.watch)
    out["watch"] = *f.watch;
  if (f.kind == answer_fault_kind::hold)
    out["holdMs"] = f.hold.count();
  return out;
}

answer_fault answer_faults::add(answer_fault fault) {
  std::lock_guard<std::mutex> guard(mtx_);
  fault.id = next_id_++;
  fault.fired = 0;
  rules_.push_back(fault);
  return fault;
}

std::optional<answer_fault> answer_faults::take(const std::string& server, const std::string& method,
                                                const std::string& path, bool watch) {
  return take_if(server, method, path, watch, false);
}

std::optional<answer_fault> answer_faults::take_rewrite(const std::string& method,
                                                        const std::string& path) {
  return take_if("portworx", method, path, false, true);
}

std::optional<answer_fault> answer_faults::take_after_commit(const std::string& server,
                                                             const std::string& method,
                                                             const std::string& path) {
  std::lock_guard<std::mutex> guard(mtx_);
  for (auto& r : rules_) {
    if (r.kind != answer_fault_kind::reset_after_commit || r.remaining <= 0 || r.server != server
        || (!r.method.empty() && r.method != method) || path.rfind(r.path_prefix, 0) != 0)
      continue;
    --r.remaining;
    ++r.fired;
    return r;
  }
  return std::nullopt;
}

std::optional<answer_fault> answer_faults::take_if(const std::string& server, const std::string& method,
                                                   const std::string& path, bool watch, bool rewrite) {
  std::lock_guard<std::mutex> guard(mtx_);
  for (auto& r : rules_) {
    if (r.kind == answer_fault_kind::reset_after_commit || r.kind == answer_fault_kind::hold)
      continue; // taken after the write (take_after_commit) or before it (take_hold)
    if (r.remaining <= 0 || (r.kind == answer_fault_kind::unknown_replica_node) != rewrite || r.server != server || (!r.method.empty() && r.method != method)
        || path.rfind(r.path_prefix, 0) != 0 || (r.watch && *r.watch != watch))
      continue;
    --r.remaining;
    ++r.fired;
    return r;
  }
  return std::nullopt;
}

std::optional<answer_fault> answer_faults::take_hold(const std::string& server,
                                                     const std::string& method,
                                                     const std::string& path, bool watch) {
  std::lock_guard<std::mutex> guard(mtx_);
  for (auto& r : rules_) {
    if (r.kind != answer_fault_kind::hold || r.remaining <= 0 || r.server != server
        || (!r.method.empty() && r.method != method) || path.rfind(r.path_prefix, 0) != 0
        || (r.watch && *r.watch != watch))
      continue;
    --r.remaining;
    ++r.fired;
    return r;
  }
  return std::nullopt;
}

std::vector<answer_fault> answer_faults::list() const {
  std::lock_guard<std::mutex> guard(mtx_);
  return rules_;
}

void answer_faults::clear() {
  std::lock_guard<std::mutex> guard(mtx_);
  rules_.clear();
}

} // namespace schedopt::sim
