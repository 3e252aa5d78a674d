// The refusals every kind's node admission words alike: node state, the scheduling
// constraints a pod and a VMI's spec share, CPU room. Each kind's rule list
// (model/kinds/<kind>/) wraps these and adds its own rules; memory stays per kind, as a
// VMI's virt-launcher asks for more than the VMI does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/objects.hpp"

namespace schedopt {

/// "not Ready" when the node is not Ready.
std::optional<std::string> refuse_not_ready(const node& n);

/// "cordoned" when the node is unschedulable.
std::optional<std::string> refuse_cordoned(const node& n);

/// "nodeSelector disk=ssd not matched": the first pair the node's labels lack.
std::optional<std::string> refuse_node_selector(const scheduling_constraints& c, const node& n);

/// "required node affinity not matched".
std::optional<std::string> refuse_affinity(const scheduling_constraints& c, const node& n);

/// "taint dedicated=db:NoSchedule not tolerated": the first taint no toleration covers.
std::optional<std::string> refuse_taint(const scheduling_constraints& c, const node& n);

/// "500m CPU free, needs 2": the node's allocatable CPU less `used_millis` is below the
/// request. Nothing is refused when the node or the request states no CPU.
std::optional<std::string> refuse_cpu(const std::optional<int64_t>& requested_millis,
                                      const node& n, int64_t used_millis);

} // namespace schedopt
