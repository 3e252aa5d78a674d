// `schedopt-sim attach`: the simulated world inside a real API server. Installs the CRDs,
// mirrors the objects the simulated parts read, creates the scenario through the API
// and runs, as that server's clients, only what has no real counterpart there.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "model/error.hpp"
#include "sim/sim_options.hpp"

namespace schedopt::sim {

class world;

class attached_world {
public:
  attached_world();
  ~attached_world();

  /// Everything up to `ready`: CRDs established, objects mirrored, the scenario created,
  /// the controllers and the SDK gateway running. `crd_dir` holds KubeVirt's (and the
  /// storage drivers') CRDs; `schedopt_crd_dir` schedopt's own, installed when absent (empty: the
  /// one in `crd_dir`).
  expected<bool> start(const std::string& kubeconfig, const serve_options& options, const std::string& crd_dir,
                       const std::string& schedopt_crd_dir);
  /// After the world starts, with --pods: until every pod of the scenario runs (Ready)
  /// or, a Job's, has completed, and every running VMI's virt-launcher pod runs; the
  /// server's controllers make them, a kubelet must run them.
  expected<bool> wait_pods_running(std::chrono::seconds timeout);
  void stop();

  world& simulated();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
