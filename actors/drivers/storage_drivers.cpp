// The registry of built-in storage drivers.
#include "actors/drivers/storage_drivers.hpp"

#include "actors/system_config.hpp"

namespace schedopt {

const std::vector<storage_driver_entry>& storage_drivers() {
  static const std::vector<storage_driver_entry> drivers{
    portworx_driver_entry(),
    csi_topology_driver_entry(),
    longhorn_driver_entry(),
  };
  return drivers;
}

caf::expected<storage_driver_entry> find_storage_driver(const std::string& name) {
  std::string known;
  for (auto& d : storage_drivers()) {
    if (d.name == name)
      return d;
    known += known.empty() ? d.name : ", " + d.name;
  }
  return to_caf_error(ec::config_error,
                      "unknown storage driver \"" + name + "\" (known: " + known + ")");
}

} // namespace schedopt
