// Keeps a mirroring object_store in step with the real API server it is attached to:
// per resource type one reflector thread that lists, then watches from the list's
// resourceVersion, and lists again after 410 Expired, as client-go's Reflector does.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "model/error.hpp"

namespace schedopt::sim {

class object_store;
class upstream_client;

class upstream_mirror {
public:
  upstream_mirror(object_store& store, upstream_client& client);
  ~upstream_mirror();

  /// Starts a reflector per type key (as registered in the store).
  void start(const std::vector<std::string>& keys);
  /// Waits until every reflector has stored its first list; the first list error otherwise.
  expected<bool> wait_synced(std::chrono::seconds timeout);
  void stop();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
