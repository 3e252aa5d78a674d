// Everything in the simulated cluster that is not the API server: the storage backend
// and its Portworx SDK gateway, the KubeVirt migration controller, pool failover, and the
// pods' controllers, schedulers and kubelets.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "model/error.hpp"
#include "sim/scenario.hpp"
#include "sim/tls.hpp"

namespace schedopt::sim {

class object_store;
class storage_backend;
class kubevirt_controller;
class answer_faults;
class pod_workloads;

class world {
public:
  /// Registers admission for VMIMs on `store`; populates it from `options`.
  world(object_store& store, scenario_options options);
  ~world();

  /// Starts the KubeVirt controller thread and the Portworx SDK REST gateway on
  /// 127.0.0.1:<port> (0 = any). `sdk_token`, if not empty, is required as a bearer token;
  /// with `sdk_tls` the gateway serves HTTPS with that certificate.
  expected<bool> start(int sdk_port = 0, const std::string& sdk_token = {},
                       std::optional<tls_material> sdk_tls = std::nullopt);
  void stop();

  /// "http://127.0.0.1:<port>" (or https://) of the OpenStorage SDK REST gateway.
  std::string sdk_url() const;

  /// Moves the replicas of one node's pool (`node` empty: a node chosen from the seed)
  /// to other nodes, then creates a SchedulingOptimization as the storage driver would.
  /// Returns the created request's name.
  expected<std::string> failover(const std::string& node = {});

  /// `kubectl drain NODE`: cordon, then evict its virt-launcher pods, which KubeVirt
  /// turns into evacuation migrations (sim/node_drain, sim/evacuation_controller).
  expected<bool> drain(const std::string& node);

  /// Broken SDK gateway answers on demand (rules with server "portworx"); before start.
  void set_answer_faults(std::shared_ptr<answer_faults> faults);

  /// The parts, for tests and tools that inspect or step them.
  storage_backend& storage();
  kubevirt_controller& controller();
  pod_workloads& workloads();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
