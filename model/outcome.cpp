// docs/design.md §1.5 terminal outcome: which final status a run earns and the reason a user reads.
#include "model/outcome.hpp"

#include "model/objects.hpp"
#include "model/reason.hpp"

namespace schedopt {

namespace {

void append_part(std::string& out, int64_t count, const char* what) {
  if (count == 0)
    return;
  if (!out.empty())
    out += ", ";
  out += std::to_string(count);
  out += ' ';
  out += what;
}

// ", N deferred by maxNonHyperconvergedPerRun: a, b" with as many names as fit in
// `budget` bytes, then "and K more" so the count stays exact.
std::string deferred_part(const std::vector<std::string>& names, std::size_t budget) {
  std::string out = std::to_string(names.size()) + " deferred by maxNonHyperconvergedPerRun: ";
  std::size_t listed = 0;
  for (const auto& name : names) {
    std::string more = " and " + std::to_string(names.size() - listed - 1) + " more";
    std::size_t need = (listed ? 2 : 0) + name.size();
    bool last = listed + 1 == names.size();
    if (out.size() + need + (last ? 0 : more.size() + 2) > budget)
      break;
    if (listed)
      out += ", ";
    out += name;
    ++listed;
  }
  if (listed < names.size()) {
    if (listed)
      out += ",";
    out += " and " + std::to_string(names.size() - listed) + " more";
  }
  return out;
}

} // namespace

std::string driver_failure_reason(std::string_view detail) {
  return "driver failure: " + std::string{detail};
}

terminal_outcome decide_outcome(const run_summary& run) {
  if (run.run_failure)
    return {request_status::failed,
            truncate_utf8(run.run_failure->reason, max_status_reason_bytes)};
  int64_t deferred = static_cast<int64_t>(run.outstanding.size());
  int64_t left = run.failed + run.skipped + deferred;
  if (left == 0 && !run.stopped_by)
    return {request_status::successful, ""};
  if (left == 0)
    return {request_status::partial_success,
            truncate_utf8(*run.stopped_by + ": VMIs not yet judged are left for a later request",
                          max_status_reason_bytes)};
  std::string parts;
  append_part(parts, run.failed, "failed");
  append_part(parts, run.skipped, "skipped");
  std::string reason = (run.stopped_by ? *run.stopped_by + "; " : std::string()) + std::to_string(left)
                       + (left == 1 ? " candidate outstanding: " : " candidates outstanding: ")
                       + parts;
  if (deferred > 0) {
    if (!parts.empty())
      reason += ", ";
    std::size_t budget = max_status_reason_bytes > reason.size()
                           ? max_status_reason_bytes - reason.size()
                           : 0;
    reason += deferred_part(run.outstanding, budget);
  }
  auto status = run.successful == 0 && run.failed > 0 ? request_status::failed
                                                      : request_status::partial_success;
  return {status, truncate_utf8(reason, max_status_reason_bytes)};
}

terminal_outcome decide_request_outcome(const request_summary& request) {
  if (request.spec_failure)
    return {request_status::failed,
            truncate_utf8(request.spec_failure->reason, max_status_reason_bytes)};
  if (request.kinds.empty())
    return {request_status::successful, "no optimization kind enabled"};
  std::vector<const kind_report*> enabled;
  std::string disabled;
  for (const auto& k : request.kinds) {
    if (k.enabled)
      enabled.push_back(&k);
    else
      disabled += (disabled.empty() ? "" : ", ") + k.kind + " disabled";
  }
  if (enabled.empty())
    return {request_status::successful, truncate_utf8(disabled, max_status_reason_bytes)};
  if (enabled.size() == 1)
    return decide_outcome(enabled.front()->run);
  std::size_t successful = 0, failed = 0;
  std::string reason;
  for (const auto* k : enabled) {
    auto outcome = decide_outcome(k->run);
    if (outcome.status == request_status::successful) {
      ++successful;
      continue;
    }
    if (outcome.status == request_status::failed)
      ++failed;
    reason += (reason.empty() ? "" : "; ") + k->kind + ": " + outcome.reason;
  }
  auto status = successful == enabled.size() ? request_status::successful
                : failed == enabled.size()   ? request_status::failed
                                             : request_status::partial_success;
  return {status, truncate_utf8(reason, max_status_reason_bytes)};
}

} // namespace schedopt
