// The refusals every kind's node admission words alike: node state, the scheduling
// constraints a pod and a VMI's spec share, CPU room. Each kind's rule list
// (model/kinds/<kind>/) wraps these and adds its own rules; memory stays per kind, as a
// VMI's virt-launcher asks for more than the VMI does.
#pragma once

#include <cstdint>
#include <map>
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

/// Why the node named `name` may not take the object: "not found" when `nodes` has no
/// such node, else `refusal(node, used)` with the node's entry of `usage` (nothing used
/// when it has none). Every kind looks its candidate targets up so.
template <class Usage, class Refusal>
std::optional<std::string> refusal_at(const std::string& name,
                                      const std::map<std::string, const node*>& nodes,
                                      const std::map<std::string, Usage>& usage,
                                      Refusal&& refusal) {
  static const Usage nothing{};
  auto n = nodes.find(name);
  if (n == nodes.end() || !n->second)
    return std::string{"not found"};
  auto u = usage.find(name);
  return refusal(*n->second, u == usage.end() ? nothing : u->second);
}

} // namespace schedopt
