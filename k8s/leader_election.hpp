// client-go leader election as a pure decision: given the Lease as last read and the
// local clock, may this replica take or renew it, and with what record.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "model/objects.hpp"
#include "model/timestamp.hpp"

namespace schedopt::k8s {

struct leader_election_timing {
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
};

/// What the elector remembers between attempts (client-go's observedRecord/observedTime).
struct lease_observation {
  std::string holder;
  std::string renew_time;
  std::string resource_version;
  std::chrono::steady_clock::time_point observed_at{};
  bool valid = false;
};

struct lease_decision {
  enum kind { create, update, wait } action = wait;
  lease record; // the Lease to write (create / update)
};

/// `held` given up: holder "", leaseDurationSeconds 1, acquire/renew time now (client-go's
/// release), keeping its resourceVersion as the write's precondition.
lease released_lease(lease held, timestamp wall_now);

class leader_election_logic {
public:
  leader_election_logic(std::string identity, std::string ns, std::string name,
                        leader_election_timing timing);

  /// Decides after a GET: `current` empty when the Lease does not exist (404).
  /// `steady_now` judges expiry (local clock since the last observed change, never the
  /// record's timestamps); `wall_now` only fills acquireTime / renewTime.
  lease_decision decide(const std::optional<lease>& current,
                        std::chrono::steady_clock::time_point steady_now, timestamp wall_now);

  /// Follows client-go v0.36.3 tools/leaderelection/leaderelection.go, tryAcquireOrRenew's
  /// fast path: while this replica leads and the record it last observed has not expired,
  /// the renewal is the Lease it last wrote (its resourceVersion the PUT's precondition)
  /// with renewTime now, sent without a GET. Empty when the slow path (GET, decide) applies.
  std::optional<lease> renewal(std::chrono::steady_clock::time_point steady_now,
                               timestamp wall_now) const;

  /// A create/update succeeded with the server's answer. `steady_sent` is when the write
  /// was sent: the renew deadline counts from there, as the write took effect after it.
  void written(const lease& stored, std::chrono::steady_clock::time_point steady_sent);

  /// The release record (holder "", leaseDurationSeconds 1) built from the last write.
  std::optional<lease> release_record(timestamp wall_now) const;

  bool is_leader() const { return leader_; }
  void lost() { leader_ = false; }
  const std::string& identity() const { return identity_; }
  std::chrono::steady_clock::time_point last_renew() const { return last_renew_; }
  const leader_election_timing& timing() const { return timing_; }

private:
  std::string identity_;
  std::string namespace_;
  std::string name_;
  leader_election_timing timing_;
  lease_observation observed_;
  std::optional<lease> last_written_;
  bool leader_ = false;
  std::chrono::steady_clock::time_point last_renew_{};
};

} // namespace schedopt::k8s
