// SPEC §1 ordering: requests run one at a time, oldest first; a request already
// Evaluating/Migrating is resumed; the others wait in Pending.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/objects.hpp"

namespace schedopt {

struct queue_decision {
  std::optional<std::string> run;      // name of the request that runs now
  bool resume = false;                 // run was already Evaluating/Migrating
  std::vector<std::string> to_pending; // names to mark Pending (not yet Pending)
  std::size_t open = 0;                // requests not Final and not being deleted
};

/// Ignores Final requests and requests being deleted. Order: creationTimestamp, then name.
queue_decision decide_queue(const std::vector<scheduling_optimization>& requests);

} // namespace schedopt
