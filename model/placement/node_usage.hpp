// What already runs on a node, as the scheduler counts it: the sum of the requests placed
// there. Both kinds judge a node's room from it, so it lives outside either kind.
#pragma once

#include <cstdint>

namespace schedopt {

/// Requests of what runs on (or is migrating to) a node.
struct node_usage {
  int64_t cpu_millis = 0;
  int64_t memory_bytes = 0;
};

} // namespace schedopt
