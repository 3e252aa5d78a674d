// Ownership labels; see ownership_labels.hpp.
#include "model/ownership_labels.hpp"

namespace schedopt {

bool is_schedopt_migration(const virtual_machine_instance_migration& m) {
  auto it = m.metadata.labels.find(labels::managed_by);
  return it != m.metadata.labels.end() && it->second == labels::managed_by_value;
}

std::string request_migrations_selector(const std::string& request_uid) {
  return std::string(labels::managed_by) + "=" + labels::managed_by_value + ","
         + labels::request_uid + "=" + request_uid;
}

} // namespace schedopt
