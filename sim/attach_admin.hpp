// What `schedopt-sim serve` answers under /admin and a real API server cannot: attached,
// the world's own actions (a pool failover, a drain) and the fault proxy's rules
// (answer faults, partitions) on a loopback HTTP listener of their own
// (--admin-endpoint-out names it), in the same shapes, so a test asks either way.
#pragma once

#include <memory>
#include <string>

#include "model/error.hpp"

namespace schedopt::sim {

class world;
class answer_faults;
class network_partitions;

class attach_admin {
public:
  /// `answers` and `partitions`: the rules the fault proxy and the SDK gateway apply.
  attach_admin(world& w, std::shared_ptr<answer_faults> answers, std::shared_ptr<network_partitions> partitions);
  ~attach_admin();

  /// Listens on 127.0.0.1 (any port); the URL, http://127.0.0.1:<port>.
  expected<std::string> start();
  void stop();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
