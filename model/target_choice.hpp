// SPEC §3 target pinning: spread schedopt migrations over the candidate's target nodes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/objects.hpp"

namespace schedopt {

/// The target with the fewest schedopt migrations in flight toward it (`in_flight` by
/// node name; absent = 0); ties go to the smallest name. nullopt when `targets` is empty.
std::optional<std::string> choose_target(const std::vector<std::string>& targets,
                                         const std::map<std::string, int64_t>& in_flight);

/// Counts non-final schedopt VMIMs per pinned node (spec.addedNodeSelector hostname).
std::map<std::string, int64_t>
in_flight_by_target(const std::vector<virtual_machine_instance_migration>& vmims);

} // namespace schedopt
