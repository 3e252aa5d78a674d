// Coalescing status writer policy: many in-memory updates, few status patches, and a
// heartbeat so the creator can tell a slow run from a dead controller.
#include "model/status_coalescer.hpp"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "model/encode.hpp"
#include "model/reason.hpp"

namespace schedopt {

namespace {

std::string key_of(const std::string& kind, const std::string& ns, const std::string& name) {
  return kind + "/" + ns + "/" + name;
}

bool mentions_too_large(std::string_view message) {
  std::string lower(message);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // "etcdserver: request is too large", "Request entity too large: limit is 3145728",
  // "object is too large", "... exceeds the maximum ..." (apiserver and etcd wording).
  return lower.find("too large") != std::string::npos
         || lower.find("exceeds the maximum") != std::string::npos;
}

} // namespace

patch_failure classify_patch_failure(ec code, int http_status, std::string_view message) {
  // A schema rejection is worded "<Kind>.<group> \"<name>\" is invalid: ..."; only a patch
  // that did not apply gets the bare message, and only the uid test can fail to apply.
  if (http_status == 422 && message.rfind(json_patch_not_applied, 0) == 0)
    return patch_failure::gone;
  if (http_status == 413 || mentions_too_large(message))
    return patch_failure::too_large;
  if (code == ec::not_found || http_status == 404)
    return patch_failure::gone;
  // 409 without a resourceVersion in the patch is a storage conflict the server gave up
  // retrying, not a precondition (PATCH has none): the next attempt can succeed.
  if (http_status == 401 || http_status == 408 || http_status == 409 || http_status == 429
      || http_status >= 500 || code == ec::conflict)
    return patch_failure::transient;
  if (http_status >= 400)
    return patch_failure::rejected;
  switch (code) {
    case ec::invalid_request:
    case ec::invalid_value:
    case ec::already_exists:
    case ec::gone:
      return patch_failure::rejected;
    default: // transport, timeout, 5xx without a status, CAF errors (ec::none)
      return patch_failure::transient;
  }
}

status_coalescer::status_coalescer(duration flush_interval, duration heartbeat_interval,
                                   std::size_t max_details)
  : flush_interval_(flush_interval),
    heartbeat_interval_(heartbeat_interval),
    max_details_(max_details) {
}

void status_coalescer::restore(const scheduling_optimization_status& s, timestamp now) {
  status_ = s;
  recorded_.clear();
  for (const auto& [kind, block] : status_.kinds)
    for (const auto& d : block.details)
      recorded_.insert(key_of(kind, d.namespace_, d.name));
  dirty_ = false;
  urgent_ = false;
  final_ = status_.stage == request_stage::final_;
  final_written_ = final_;
  // The previous writer's last write is what the creator last saw: heartbeats continue
  // from there, so a long-dead controller's successor bumps the timestamp at once.
  last_write_.reset();
  if (auto t = parse_rfc3339(status_.last_update_timestamp))
    last_write_ = std::min(*t, now);
}

void status_coalescer::touch() {
  ++stats_.updates;
  if (dirty_)
    ++stats_.coalesced;
  dirty_ = true;
}

bool status_coalescer::in_progress() const {
  return !final_ && is_running(status_.stage);
}

void status_coalescer::set_stage(request_stage stage_name, request_status status, timestamp now) {
  if (final_ || (status_.stage == stage_name && status_.status == status))
    return;
  status_.stage = stage_name;
  status_.status = status;
  if (stage_name == request_stage::evaluating && status_.start_timestamp.empty())
    status_.start_timestamp = format_rfc3339(now);
  urgent_ = true;
  touch();
}

void status_coalescer::set_observed_generation(int64_t generation) {
  if (final_ || status_.observed_generation == generation)
    return;
  status_.observed_generation = generation;
  touch();
}

void status_coalescer::set_reason(const std::string& reason) {
  auto r = truncated_ ? noted(reason) : reason;
  if (final_ || status_.reason == r)
    return;
  status_.reason = std::move(r);
  touch();
}

status_coalescer::block_caps& status_coalescer::caps_of(const std::string& kind) {
  return caps_.try_emplace(kind, block_caps{max_details_, 0}).first->second;
}

void status_coalescer::reserve_details(const std::string& kind, std::size_t n) {
  caps_of(kind).reserved += n;
  // No write of its own: the block rides on the next one (the kind's stage or Final).
  if (!final_)
    status_.kinds.try_emplace(kind);
}

bool status_coalescer::add_result(const std::string& kind, const kind_detail& d) {
  if (final_ || !recorded_.insert(key_of(kind, d.namespace_, d.name)).second)
    return false;
  auto& block = status_.kinds[kind];
  auto& caps = caps_of(kind);
  if (d.status == detail_status::successful)
    ++block.successful;
  else if (d.status == detail_status::skipped)
    ++block.skipped;
  else
    ++block.failed;
  bool is_skip = d.status == detail_status::skipped;
  if (is_skip ? block.details.size() + caps.reserved < caps.max_details
              : block.details.size() < caps.max_details)
    block.details.push_back(d);
  if (!is_skip && caps.reserved > 0)
    --caps.reserved;
  touch();
  return true;
}

bool status_coalescer::has_detail(const std::string& kind, const std::string& namespace_,
                                  const std::string& name) const {
  return recorded_.count(key_of(kind, namespace_, name)) > 0;
}

void status_coalescer::finish(request_status status, const std::string& reason, timestamp now) {
  if (final_)
    return;
  status_.stage = request_stage::final_;
  status_.status = status;
  status_.reason = reason;
  if (status_.start_timestamp.empty())
    status_.start_timestamp = format_rfc3339(now);
  status_.finish_timestamp = format_rfc3339(now);
  if (truncated_)
    status_.reason = noted(status_.reason);
  final_ = true;
  urgent_ = true;
  touch();
}

bool status_coalescer::due(timestamp now) const {
  if (final_written_)
    return false;
  if (urgent_)
    return true;
  auto since = [&](duration interval) { return !last_write_ || now - *last_write_ >= interval; };
  if (dirty_ && since(flush_interval_))
    return true;
  return in_progress() && since(heartbeat_interval_);
}

std::optional<timestamp> status_coalescer::next_due() const {
  if (final_written_)
    return std::nullopt;
  if (urgent_ || (!last_write_ && (dirty_ || in_progress())))
    return last_write_.value_or(timestamp{});
  std::optional<timestamp> next;
  auto candidate = [&](duration interval) {
    auto t = *last_write_ + std::chrono::duration_cast<timestamp::duration>(interval);
    if (!next || t < *next)
      next = t;
  };
  if (dirty_)
    candidate(flush_interval_);
  if (in_progress())
    candidate(heartbeat_interval_);
  return next;
}

std::string status_coalescer::noted(const std::string& reason) const {
  static constexpr std::string_view note = "details truncated: status too large";
  if (reason.find(note) != std::string::npos)
    return reason;
  if (reason.empty())
    return std::string{note};
  // The note goes last so that clients splitting on the first ": " still find the kind;
  // it survives the byte cap because the original reason is cut, not the note.
  std::string suffix = " (" + std::string{note} + ")";
  return truncate_utf8(reason, max_reason_bytes - suffix.size()) + suffix;
}

bool status_coalescer::shrink_details() {
  bool any = false;
  for (auto& [kind, block] : status_.kinds) {
    if (block.details.empty())
      continue;
    any = true;
    block.details.resize(block.details.size() / 2);
    caps_of(kind) = block_caps{block.details.size(), 0};
  }
  if (!any)
    return false;
  truncated_ = true;
  status_.reason = noted(status_.reason);
  // The patch that failed never landed: what it carried must be written again.
  final_written_ = false;
  urgent_ = true;
  dirty_ = true;
  return true;
}

std::string status_coalescer::take_patch(timestamp now, std::string_view uid) {
  status_.last_update_timestamp = format_rfc3339(now);
  dirty_ = false;
  urgent_ = false;
  last_write_ = now;
  if (final_)
    final_written_ = true;
  ++stats_.patches;
  return status_json_patch(status_, uid);
}

} // namespace schedopt
