// What `schedopt-sim serve` answers under /admin and a real API server cannot: attached,
// the world's own actions on a loopback HTTP listener of their own (--admin-endpoint-out
// names it), in the same shapes, so a test asks for a pool failover either way.
#pragma once

#include <memory>
#include <string>

#include "model/error.hpp"

namespace schedopt::sim {

class world;

class attach_admin {
public:
  explicit attach_admin(world& w);
  ~attach_admin();

  /// Listens on 127.0.0.1 (any port); the URL, http://127.0.0.1:<port>.
  expected<std::string> start();
  void stop();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
