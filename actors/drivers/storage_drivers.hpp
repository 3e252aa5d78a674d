// The storage drivers schedopt knows (docs/design.md §6) behind one interface: which PVs a driver
// owns (a pure predicate the evaluator uses) and an actor answering replica queries.
// Adding a driver is one file plus one line in storage_drivers.cpp.
#pragma once

#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include "actors/actors.hpp"
#include "config/settings.hpp"

namespace schedopt {

/// Starts a driver. Drivers that read Kubernetes objects (longhorn) get the process's
/// API client as a third argument; the others are written as (sys, cfg) and callers
/// that have no API client (tests of those drivers) may leave it out.
class storage_driver_spawner {
public:
  using function = std::function<caf::expected<storage_driver_actor>(
    caf::actor_system&, const settings&, const api_client_actor&)>;

  storage_driver_spawner() = default;

  template <class F, std::enable_if_t<std::is_invocable_v<F&, caf::actor_system&, const settings&,
                                                          const api_client_actor&>,
                                      int> = 0>
  storage_driver_spawner(F f) : fn_(std::move(f)) {}

  template <class F,
            std::enable_if_t<std::is_invocable_v<F&, caf::actor_system&, const settings&>, long> = 0>
  storage_driver_spawner(F f)
    : fn_([f = std::move(f)](caf::actor_system& sys, const settings& cfg,
                             const api_client_actor&) mutable { return f(sys, cfg); }) {}

  caf::expected<storage_driver_actor> operator()(caf::actor_system& sys, const settings& cfg,
                                                 const api_client_actor& api = {}) const {
    return fn_(sys, cfg, api);
  }

private:
  function fn_;
};

struct storage_driver_entry {
  std::string name;
  std::function<bool(const persistent_volume&, const settings&)> owns;
  storage_driver_spawner spawn;
  /// Its bulk lookup answers late in a large fleet: a run asks it first for the volumes
  /// of its first VMIs (replica_query::lead), so their migrations start sooner.
  bool answers_a_lead_sooner = false;
};

/// Every built-in driver.
const std::vector<storage_driver_entry>& storage_drivers();

/// The entry named `name`, or an error listing the known names.
caf::expected<storage_driver_entry> find_storage_driver(const std::string& name);

// Defined in one file per driver, listed in storage_drivers.cpp.
storage_driver_entry portworx_driver_entry();
storage_driver_entry csi_topology_driver_entry();
storage_driver_entry longhorn_driver_entry();

} // namespace schedopt
