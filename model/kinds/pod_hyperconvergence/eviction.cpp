// Eviction bodies and answers (see eviction.hpp for the table this follows).
#include "model/kinds/pod_hyperconvergence/eviction.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "model/decode_fields.hpp"
#include "model/kinds/pod_hyperconvergence/pod_reason.hpp"

namespace schedopt::pod_hyperconvergence {

using detail::decode_reader;
using detail::json_object;

nlohmann::json eviction_body(const std::string& namespace_, const std::string& name,
                             const std::string& uid, bool dry_run) {
  nlohmann::json body;
  body["apiVersion"] = "policy/v1";
  body["kind"] = "Eviction";
  body["metadata"]["name"] = name;
  body["metadata"]["namespace"] = namespace_;
  auto& options = body["deleteOptions"];
  options = nlohmann::json::object();
  if (!uid.empty())
    options["preconditions"]["uid"] = uid;
  if (dry_run)
    options["dryRun"] = nlohmann::json::array({"All"});
  return body;
}

expected<eviction_status> decode_eviction_status(std::string_view json) {
  return detail::decode_document<eviction_status>(json, [](decode_reader& r,
                                                           const json_object& root,
                                                           eviction_status& s) {
    detail::read_status_head(r, root, s);
    auto details = r.child(root, "details");
    r.read(details, "retryAfterSeconds", s.retry_after_seconds);
    r.for_each(details, "causes", [&](const json_object& o) {
      status_cause c;
      r.read(o, "reason", c.type); // metav1.StatusCause's type travels as "reason"
      r.read(o, "message", c.message);
      r.read(o, "field", c.field);
      s.causes.push_back(std::move(c));
    });
  });
}

const char* to_string(eviction_verdict v) {
  switch (v) {
    case eviction_verdict::evicted: return "evicted";
    case eviction_verdict::gone: return "gone";
    case eviction_verdict::blocked: return "blocked";
    case eviction_verdict::transient: return "transient";
    case eviction_verdict::failed: return "failed";
  }
  return "unknown";
}

namespace {

// The Status's words, or what the code means when the body says nothing readable.
std::string message_of(int http_status, const eviction_status* s) {
  if (s && !s->message.empty())
    return s->message;
  if (http_status == 0)
    return "no answer from the API server";
  return "HTTP " + std::to_string(http_status) + " without a message";
}

} // namespace

eviction_decision decide_eviction(int http_status, std::string_view body,
                                  std::chrono::seconds retry_after) {
  std::optional<eviction_status> status;
  if (!body.empty())
    if (auto decoded = decode_eviction_status(body))
      status = std::move(*decoded);
  const eviction_status* s = status ? &*status : nullptr;
  eviction_decision out;
  out.retry_after = s && s->retry_after_seconds > 0 ? std::chrono::seconds{s->retry_after_seconds}
                                                   : std::max(retry_after, std::chrono::seconds{0});
  if (http_status >= 200 && http_status < 300) {
    out.verdict = eviction_verdict::evicted;
    return out;
  }
  if (http_status == 404 || http_status == 409) {
    out.verdict = eviction_verdict::gone;
    out.message = message_of(http_status, s);
    return out;
  }
  if (http_status == 429) {
    out.verdict = eviction_verdict::blocked;
    out.message = message_of(http_status, s);
    if (s)
      for (const auto& c : s->causes)
        if (c.type == "DisruptionBudget" && !c.message.empty())
          out.message = c.message;
    return out;
  }
  // The eviction handler's own 500 (two budgets) carries no reason; the API server's
  // internal errors say InternalError.
  if (http_status == 500 && s && s->reason.empty()) {
    out.verdict = eviction_verdict::failed;
    out.message = make_pod_reason(pod_reason::eviction_failed, message_of(http_status, s));
    return out;
  }
  if (http_status == 0 || http_status >= 500) {
    out.verdict = eviction_verdict::transient;
    out.message = message_of(http_status, s);
    return out;
  }
  out.verdict = eviction_verdict::failed;
  out.message = make_pod_reason(pod_reason::eviction_failed, message_of(http_status, s));
  return out;
}

std::chrono::milliseconds eviction_retry_delay(int attempt, std::chrono::seconds server_hint) {
  using std::chrono::milliseconds;
  if (server_hint.count() > 0)
    return std::min<milliseconds>(server_hint, max_eviction_retry_delay);
  milliseconds delay = std::chrono::seconds{5};
  const milliseconds cap = std::chrono::minutes{1};
  for (int i = 1; i < attempt && delay < cap; ++i)
    delay *= 2;
  return std::min(delay, cap);
}

std::string disruption_budget_reason(std::string_view last_message) {
  return make_pod_reason(pod_reason::disruption_budget, last_message);
}

pod_detail unevicted_outcome(const std::string& namespace_, const std::string& name,
                             const eviction_decision& last) {
  if (last.verdict == eviction_verdict::blocked)
    return {name, namespace_, pod_result::skipped, disruption_budget_reason(last.message)};
  if (last.verdict == eviction_verdict::transient)
    return {name, namespace_, pod_result::failed,
            make_pod_reason(pod_reason::eviction_failed, last.message)};
  return {name, namespace_, pod_result::failed, last.message};
}

eviction_window::eviction_window(timestamp opened, timestamp run_deadline, duration settle_grace)
    : last_progress_(opened), deadline_(run_deadline), grace_(settle_grace) {}

void eviction_window::progress(timestamp now) {
  last_progress_ = std::max(last_progress_, now);
}

timestamp eviction_window::closes_at() const {
  return std::min(deadline_,
                  last_progress_ + std::chrono::duration_cast<timestamp::duration>(grace_));
}

bool eviction_window::open(timestamp now, std::size_t awaiting_replacements) const {
  if (now >= deadline_)
    return false;
  return awaiting_replacements > 0 || now < closes_at();
}

} // namespace schedopt::pod_hyperconvergence
