#include "model/placement/node_refusals.hpp"

#include <algorithm>

#include "model/placement/node_admission.hpp" // the matchers
#include "model/quantity.hpp"

namespace schedopt {

std::optional<std::string> refuse_not_ready(const node& n) {
  if (!n.ready)
    return std::string{"not Ready"};
  return std::nullopt;
}

std::optional<std::string> refuse_cordoned(const node& n) {
  if (n.unschedulable)
    return std::string{"cordoned"};
  return std::nullopt;
}

std::optional<std::string> refuse_node_selector(const scheduling_constraints& c, const node& n) {
  if (auto pair = unmatched_node_selector(c.node_selector, n))
    return "nodeSelector " + *pair + " not matched";
  return std::nullopt;
}

std::optional<std::string> refuse_affinity(const scheduling_constraints& c, const node& n) {
  if (!matches_required_affinity(c.required_node_affinity, n))
    return std::string{"required node affinity not matched"};
  return std::nullopt;
}

std::optional<std::string> refuse_taint(const scheduling_constraints& c, const node& n) {
  if (auto* t = untolerated_taint(c.tolerations, n))
    return "taint " + describe(*t) + " not tolerated";
  return std::nullopt;
}

std::optional<std::string> refuse_cpu(const std::optional<int64_t>& requested_millis,
                                      const node& n, int64_t used_millis) {
  if (n.allocatable.cpu_millis && requested_millis) {
    auto free = std::max<int64_t>(0, *n.allocatable.cpu_millis - used_millis);
    if (free < *requested_millis)
      return format_cpu(free) + " CPU free, needs " + format_cpu(*requested_millis);
  }
  return std::nullopt;
}

} // namespace schedopt
