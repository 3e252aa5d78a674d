// Stork's scheduler beside a real control plane (schedopt-sim attach): the pods naming
// `stork` are its to bind, through pods/binding as any second scheduler binds, with
// Stork's storage-aware scoring (sim/pod_placement); kube-scheduler binds the rest. A
// scenario's pods go first where it planned them, a misplaced share included.
#pragma once

#include <memory>

#include "sim/scenario.hpp"

namespace schedopt::sim {

class object_store;
class storage_backend;

class stork_scheduler {
public:
  /// `store` mirrors the API server (object_store::mirror_upstream).
  stork_scheduler(object_store& store, const storage_backend& storage, first_placements planned);
  ~stork_scheduler();

  void start();
  void stop();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
