// `kubectl drain NODE` against the simulated cluster: cordon, the node lifecycle
// controller's unschedulable taint, then the eviction of every virt-launcher pod on the
// node, retried while KubeVirt refuses, until every pod is gone.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "model/error.hpp"
#include "sim/kubevirt_cr_settings.hpp"

namespace schedopt::sim {

class object_store;

struct node_drain_options {
  /// kubectl drain.go evictPods: a refused (429) eviction is tried again after 5s.
  std::chrono::milliseconds eviction_retry{std::chrono::seconds{5}};
  std::chrono::milliseconds tick_interval{100};
  /// The eviction strategy when the store holds no KubeVirt CR.
  kubevirt_cr_settings fallback;
  /// Taint the cordoned node as the node lifecycle controller would; false where a real
  /// one runs (attached).
  bool taint_cordoned = true;
};

class node_drain {
public:
  /// Indexes the VMIs of `store` from now on; construct it before the scenario is
  /// stored so that no object has to be replayed.
  node_drain(object_store& store, node_drain_options options);
  ~node_drain();

  /// Cordons `node` and lists its pods now; evictions start at the next tick. A node
  /// already being drained is left as it is. An error when there is no such node.
  expected<bool> drain(const std::string& node, std::chrono::system_clock::time_point now);
  /// True once a drain of `node` was started and every pod it listed is gone.
  bool drained(const std::string& node) const;

  /// Runs tick() every tick_interval on a thread of its own.
  void start();
  void stop();
  /// One eviction round for every pod whose retry is due at `now`.
  void tick(std::chrono::system_clock::time_point now);

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
