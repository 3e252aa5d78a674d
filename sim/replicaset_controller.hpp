// kube-controller-manager's ReplicaSet controller for the simulated cluster: keeps
// spec.replicas active pods (a deleted or evicted pod is replaced by a new one with a
// generated name as soon as the old one is terminating) and writes the set's status.
#pragma once

#include <chrono>

#include "sim/reaction_delay.hpp"

namespace schedopt::sim {

class object_store;

class replicaset_controller {
public:
  /// A missing pod is created `recreate_delay` after the controller first saw it missing.
  replicaset_controller(object_store& store, std::chrono::milliseconds recreate_delay);

  /// One pass over every ReplicaSet as of `now`.
  void tick(std::chrono::system_clock::time_point now);

private:
  object_store& store_;
  reaction_delay create_delay_;
};

} // namespace schedopt::sim
