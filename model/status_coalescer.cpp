// Coalescing status writer policy: many in-memory updates, few merge patches, and a
// heartbeat so the creator can tell a slow run from a dead controller.
#include "model/status_coalescer.hpp"

#include <algorithm>

#include "model/encode.hpp"

namespace schedopt {

namespace {

std::string key_of(const std::string& ns, const std::string& name) {
  return ns + "/" + name;
}

} // namespace

status_coalescer::status_coalescer(duration flush_interval, duration heartbeat_interval,
                                   std::size_t max_details)
  : flush_interval_(flush_interval),
    heartbeat_interval_(heartbeat_interval),
    max_details_(max_details) {
}

void status_coalescer::restore(const scheduling_optimization_status& s, timestamp now) {
  status_ = s;
  recorded_.clear();
  if (status_.vm_hyperconvergence)
    for (const auto& d : status_.vm_hyperconvergence->details)
      recorded_.insert(key_of(d.namespace_, d.name));
  dirty_ = false;
  urgent_ = false;
  final_ = status_.stage == stage::final_;
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
  return !final_ && (status_.stage == stage::evaluating || status_.stage == stage::migrating);
}

void status_coalescer::set_stage(const std::string& stage_name, const std::string& status,
                                 timestamp now) {
  if (final_ || (status_.stage == stage_name && status_.status == status))
    return;
  status_.stage = stage_name;
  status_.status = status;
  if (stage_name == stage::evaluating && status_.start_timestamp.empty())
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
  if (final_ || status_.reason == reason)
    return;
  status_.reason = reason;
  touch();
}

bool status_coalescer::add_result(const vm_detail& d) {
  if (final_ || !recorded_.insert(key_of(d.namespace_, d.name)).second)
    return false;
  if (!status_.vm_hyperconvergence)
    status_.vm_hyperconvergence.emplace();
  auto& vh = *status_.vm_hyperconvergence;
  if (d.status == vm_status::successful)
    ++vh.successful;
  else if (d.status == vm_status::skipped)
    ++vh.skipped;
  else
    ++vh.failed;
  bool is_skip = d.status == vm_status::skipped;
  if (is_skip ? vh.details.size() + reserved_ < max_details_ : vh.details.size() < max_details_)
    vh.details.push_back(d);
  if (!is_skip && reserved_ > 0)
    --reserved_;
  touch();
  return true;
}

bool status_coalescer::has_detail(const std::string& namespace_,
                                  const std::string& name) const {
  return recorded_.count(key_of(namespace_, name)) > 0;
}

void status_coalescer::finish(const std::string& status, const std::string& reason,
                              timestamp now) {
  if (final_)
    return;
  status_.stage = stage::final_;
  status_.status = status;
  status_.reason = reason;
  if (status_.start_timestamp.empty())
    status_.start_timestamp = format_rfc3339(now);
  status_.finish_timestamp = format_rfc3339(now);
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

std::string status_coalescer::take_patch(timestamp now) {
  status_.last_update_timestamp = format_rfc3339(now);
  dirty_ = false;
  urgent_ = false;
  last_write_ = now;
  if (final_)
    final_written_ = true;
  ++stats_.patches;
  return status_merge_patch(status_);
}

} // namespace schedopt
