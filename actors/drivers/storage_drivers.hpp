// The storage drivers schedopt knows (SPEC §6) behind one interface: which PVs a driver
// owns (a pure predicate the evaluator uses) and an actor answering replica queries.
// Adding a driver is one file plus one line in storage_drivers.cpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include "actors/actors.hpp"
#include "config/settings.hpp"

namespace schedopt {

struct storage_driver_entry {
  std::string name;
  std::function<bool(const persistent_volume&, const settings&)> owns;
  std::function<caf::expected<storage_driver_actor>(caf::actor_system&, const settings&)> spawn;
};

/// Every built-in driver.
const std::vector<storage_driver_entry>& storage_drivers();

/// The entry named `name`, or an error listing the known names.
caf::expected<storage_driver_entry> find_storage_driver(const std::string& name);

// Defined in one file per driver, listed in storage_drivers.cpp.
storage_driver_entry portworx_driver_entry();
storage_driver_entry csi_topology_driver_entry();

} // namespace schedopt
