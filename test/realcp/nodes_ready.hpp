// Whether kwok has taken every node: on the real control plane a new Node carries the
// not-ready taint until the node lifecycle controller sees its kubelet's heartbeats, and
// the controller admits no target before that.
#pragma once

#include <chrono>
#include <string>

#include "e2e/kube_calls.hpp"

namespace schedopt::realcp {

/// Waits until every node is Ready with no not-ready taint; false after `timeout`.
template <class Endpoint>
bool all_nodes_ready(const Endpoint& cluster, std::chrono::seconds timeout) {
  return schedopt::e2e::eventually(
    [&] {
      auto nodes = schedopt::e2e::items(cluster, "/api/v1/nodes");
      if (nodes.empty())
        return false;
      for (auto& n : nodes) {
        for (auto& t : n.value("/spec/taints"_json_pointer, nlohmann::json::array()))
          if (t.value("key", "") == "node.kubernetes.io/not-ready")
            return false;
        bool ready = false;
        for (auto& c : n.value("/status/conditions"_json_pointer, nlohmann::json::array()))
          ready = ready || (c.value("type", "") == "Ready" && c.value("status", "") == "True");
        if (!ready)
          return false;
      }
      return true;
    },
    timeout, std::chrono::milliseconds(250));
}

} // namespace schedopt::realcp
