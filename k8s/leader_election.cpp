// client-go's tryAcquireOrRenew, minus the I/O.
#include "k8s/leader_election.hpp"

namespace schedopt::k8s {

leader_election_logic::leader_election_logic(std::string identity, std::string ns,
                                             std::string name, leader_election_timing timing)
  : identity_(std::move(identity)), namespace_(std::move(ns)), name_(std::move(name)),
    timing_(timing) {
}

lease_decision leader_election_logic::decide(const std::optional<lease>& current,
                                             std::chrono::steady_clock::time_point steady_now,
                                             timestamp wall_now) {
  lease_decision d;
  auto secs = std::chrono::duration_cast<std::chrono::seconds>(timing_.lease_duration).count();
  auto now_text = format_rfc3339_micro(wall_now);
  if (!current) {
    d.action = lease_decision::create;
    d.record.metadata.name = name_;
    d.record.metadata.namespace_ = namespace_;
    d.record.holder_identity = identity_;
    d.record.lease_duration_seconds = std::max<int64_t>(1, secs);
    d.record.acquire_time = now_text;
    d.record.renew_time = now_text;
    d.record.lease_transitions = 0;
    return d;
  }
  // Any change of the record restarts the expiry clock, measured locally.
  if (!observed_.valid || observed_.holder != current->holder_identity
      || observed_.renew_time != current->renew_time
      || observed_.resource_version != current->metadata.resource_version) {
    observed_.holder = current->holder_identity;
    observed_.renew_time = current->renew_time;
    observed_.resource_version = current->metadata.resource_version;
    observed_.observed_at = steady_now;
    observed_.valid = true;
  }
  bool held_by_other = !current->holder_identity.empty() && current->holder_identity != identity_;
  // The lease duration is the holder's promise; honour what the record says, as client-go.
  auto duration = current->lease_duration_seconds > 0
                    ? std::chrono::milliseconds{current->lease_duration_seconds * 1000}
                    : timing_.lease_duration;
  if (held_by_other && observed_.observed_at + duration > steady_now) {
    leader_ = false;
    d.action = lease_decision::wait;
    return d;
  }
  d.action = lease_decision::update;
  d.record = *current; // keeps metadata.resourceVersion for the optimistic PUT
  d.record.holder_identity = identity_;
  d.record.lease_duration_seconds = std::max<int64_t>(1, secs);
  d.record.renew_time = now_text;
  if (current->holder_identity == identity_ && leader_) {
    // Renewal: acquireTime and transitions stay.
  } else {
    d.record.acquire_time = now_text;
    if (current->holder_identity != identity_)
      d.record.lease_transitions = current->lease_transitions + 1;
  }
  return d;
}

std::optional<lease> leader_election_logic::renewal(std::chrono::steady_clock::time_point steady_now,
                                                   timestamp wall_now) const {
  if (!leader_ || !last_written_ || !observed_.valid)
    return std::nullopt;
  // isLeaseValid: the observed record's own duration from when it was observed.
  auto duration = last_written_->lease_duration_seconds > 0
                    ? std::chrono::milliseconds{last_written_->lease_duration_seconds * 1000}
                    : timing_.lease_duration;
  if (observed_.observed_at + duration <= steady_now)
    return std::nullopt;
  lease r = *last_written_;
  auto secs = std::chrono::duration_cast<std::chrono::seconds>(timing_.lease_duration).count();
  r.holder_identity = identity_;
  r.lease_duration_seconds = std::max<int64_t>(1, secs);
  r.renew_time = format_rfc3339_micro(wall_now); // acquireTime and transitions stay
  return r;
}

void leader_election_logic::written(const lease& stored,
                                    std::chrono::steady_clock::time_point steady_now) {
  last_written_ = stored;
  observed_.holder = stored.holder_identity;
  observed_.renew_time = stored.renew_time;
  observed_.resource_version = stored.metadata.resource_version;
  observed_.observed_at = steady_now;
  observed_.valid = true;
  leader_ = stored.holder_identity == identity_;
  if (leader_)
    last_renew_ = steady_now;
}

lease released_lease(lease held, timestamp wall_now) {
  held.holder_identity.clear();
  held.lease_duration_seconds = 1;
  auto now_text = format_rfc3339_micro(wall_now);
  held.renew_time = now_text;
  held.acquire_time = now_text;
  return held;
}

std::optional<lease> leader_election_logic::release_record(timestamp wall_now) const {
  if (!leader_ || !last_written_)
    return std::nullopt;
  return released_lease(*last_written_, wall_now);
}

} // namespace schedopt::k8s
