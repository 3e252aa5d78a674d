// kwok as every node's kubelet for `schedopt-sim attach --kwok DIR`: started against the
// same API server with the stages kwok's module ships (node-initialize and heartbeats
// with Leases, pods Ready), stopped with the simulator, so that attach and a bare control
// plane make a whole cluster. DIR holds bin/kwok and kwok-stages/ (test/controlplane/
// build.sh's output folder).
#pragma once

#include <string>
#include <sys/types.h>

#include "model/error.hpp"

namespace schedopt::sim {

class kwok_kubelets {
public:
  kwok_kubelets() = default;
  ~kwok_kubelets();
  kwok_kubelets(const kwok_kubelets&) = delete;
  kwok_kubelets& operator=(const kwok_kubelets&) = delete;

  /// Starts `<dir>/bin/kwok --kubeconfig <kubeconfig> --manage-all-nodes` with every
  /// stage in `<dir>/kwok-stages`; its log goes to the simulator's stderr.
  expected<bool> start(const std::string& dir, const std::string& kubeconfig);
  /// SIGTERM, then SIGKILL after 10 s.
  void stop();

private:
  pid_t pid_ = 0;
};

} // namespace schedopt::sim
