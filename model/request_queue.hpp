// docs/design.md §1.2 ordering: requests run one at a time, oldest first; a request already
// Evaluating/Migrating is resumed; the others wait in Pending.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/objects.hpp"

namespace schedopt {

struct queue_decision {
  std::optional<std::string> run;      // uid of the request that runs now
  bool resume = false;                 // run was already Evaluating/Migrating
  std::vector<std::string> to_pending; // uids of new requests (stage "") to mark Pending
  /// uids of new requests beyond maxPendingRequests: they end Failed at once, so a flood
  /// of requests cannot queue work for days.
  std::vector<std::string> to_reject;
  std::size_t open = 0;                // requests not Final and not being deleted
};

/// Ignores Final requests and requests being deleted. A request already Evaluating or
/// Migrating runs first (the oldest of them); otherwise the oldest (creationTimestamp,
/// then name). Only new requests are marked Pending: a stage past Pending (a second
/// interrupted run) is never written back, it is resumed after the first.
queue_decision decide_queue(const std::vector<scheduling_optimization>& requests);

/// The same decision over borrowed requests: the controller decides on every request
/// event, and copying each stored request there made a long-lived controller's cost
/// grow with every request it had ever seen.
/// `max_pending` bounds the requests waiting behind the one chosen: the oldest wait,
/// new ones past the bound are listed in to_reject instead of to_pending.
queue_decision decide_queue_borrowed(const std::vector<const scheduling_optimization*>& requests,
                                     std::size_t max_pending = SIZE_MAX);

} // namespace schedopt
