// What the simulator's constrained scenarios (--constrained, --tainted-nodes) put on VMI
// and node objects, read the way the scheduler reads them: tests judge schedopt's
// placement decisions against these.
#pragma once

#include "e2e/kube_calls.hpp"

namespace schedopt::e2e {

inline bool tolerates_dedicated(const json& vmi) {
  for (auto& t : vmi.value("/spec/tolerations"_json_pointer, json::array()))
    if (t.value("key", "") == "dedicated")
      return true;
  return false;
}

inline bool node_tainted(const json& node) {
  for (auto& t : node.value("/spec/taints"_json_pointer, json::array()))
    if (t.value("key", "") == "dedicated" && t.value("effect", "") == "NoSchedule")
      return true;
  return false;
}

inline bool selector_matches(const json& vmi, const json& node) {
  auto labels = node.value("/metadata/labels"_json_pointer, json::object());
  // Held by name: a range-for over value(...).items() iterates a destroyed temporary.
  auto selector = vmi.value("/spec/nodeSelector"_json_pointer, json::object());
  for (auto& [k, v] : selector.items())
    if (!labels.contains(k) || labels[k] != v)
      return false;
  return true;
}

} // namespace schedopt::e2e
