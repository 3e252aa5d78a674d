// The floors a cluster's owner sets and no request can lower: the shortest cool-off a
// request may ask for and the longest a run may keep creating migrations. Whoever may
// create a request may live-migrate VMs in every namespace; these bound what one
// request can make schedopt do.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/duration.hpp"
#include "model/timestamp.hpp"

namespace schedopt {

struct cool_off_choice {
  duration effective{};
  /// Non-empty when the request asked for less than the floor: the Warning
  /// (CoolOffClamped) that says so.
  std::string clamped;
  /// Non-empty when the request's value is not a duration: the run fails with it.
  std::string error;
};

/// The cool-off a run uses: the request's spec.<kind>.coolOffPeriod when set, else the
/// cluster default, never below `floor`. `kind` names the field in the error; every
/// kind's cool-off shares this floor and its wording.
cool_off_choice choose_cool_off(const std::optional<std::string>& requested,
                                duration cluster_default, duration floor,
                                std::string_view kind);

/// How long a run started at `started` may still create migrations (zero once past).
/// A resumed run counts from its recorded startTimestamp, so a restart does not give it
/// a fresh budget; an unreadable one counts from `now`.
duration run_time_left(const std::string& start_timestamp, timestamp now, duration max_run);

/// The reason a run stopped early gives: "maxRunDuration 6h reached".
std::string run_deadline_reason(duration max_run);

} // namespace schedopt
