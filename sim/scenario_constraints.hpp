// The scheduling side of a scenario (--constrained, --tainted-nodes, --full-nodes):
// node zones, taints and allocatable resources, and the VMIs' nodeSelectors, required
// node affinities and tolerations. Its own seeded generator, so the rest of a seed's
// scenario is the same with or without these flags.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario.hpp"
#include "sim/scenario_objects.hpp"

namespace schedopt::sim {

/// Every node carries this label, zone-0 .. zone-2 by node index.
constexpr const char* zone_label = "topology.kubernetes.io/zone";
/// The taint of --tainted-nodes nodes: dedicated=vms:NoSchedule.
constexpr const char* dedicated_taint_key = "dedicated";
constexpr const char* dedicated_taint_value = "vms";

class scenario_constraints {
public:
  explicit scenario_constraints(const scenario_options& options);

  /// Zone label, taint, and allocatable CPU and memory for node `index` (0-based) of
  /// `node`: room for twice the node's fair share of VMIs plus 16 (at least the stock
  /// 32 CPUs / ~126Gi); a full node is cut down in finish().
  void shape_node(nlohmann::json& node, int index) const;

  /// VMI `index`, placed on plan.node with `score` replicas per node: tolerations, and
  /// for a --constrained share a nodeSelector or required affinity that keeps plan.node
  /// but excludes one of its best (else replica) nodes.
  void constrain(vmi_plan& plan, int index, const std::map<std::string, int>& score,
                 const std::vector<std::string>& node_names);

  /// Full nodes: allocatable memory = requests placed there + 2Gi (less than one VMI).
  void finish(class object_store& store, const std::vector<std::string>& node_names) const;

  bool tainted(int index) const { return tainted_.count(index) != 0; }
  bool full(int index) const { return full_.count(index) != 0; }

private:
  std::string zone_of(const std::string& node, const std::vector<std::string>& names) const;

  scenario_options options_;
  std::mt19937_64 rng_;
  std::set<int> tainted_, full_;
  std::vector<bool> constrained_;
  std::map<std::string, int> placed_; // VMIs per node
};

} // namespace schedopt::sim
