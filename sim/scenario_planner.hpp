// What a scenario creates, decided from one seeded generator and built as JSON trees,
// apart from storing it (populate()): every draw is here, so how the objects are stored
// cannot change a seed's cluster.
#pragma once

#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario.hpp"
#include "sim/scenario_constraints.hpp"
#include "sim/scenario_objects.hpp"
#include "sim/storage_backend.hpp"

namespace schedopt::sim {

struct planned_node {
  storage_node identity;
  nlohmann::json object;
};

/// One PVC and its PV; `pv` names its claim's uid once bind_claim() has run.
struct planned_volume {
  storage_volume backing;   // replica placement, for the storage backend
  bool driver_owned = true; // false: another CSI driver's disk, which the backend does not hold
  nlohmann::json pvc;
  nlohmann::json pv;
};

/// One VMI with everything it needs; `vmi` is built without its VM owner (the VM's uid
/// exists only once the VM is created): own_by_vm() adds it.
struct planned_vmi {
  vmi_plan plan;
  std::vector<planned_volume> volumes;
  nlohmann::json vm; // null for a standalone VMI
  nlohmann::json vmi;
};

class scenario_planner {
public:
  /// `options` must be clamped (populate() does it).
  explicit scenario_planner(const scenario_options& options);

  /// Every node, in name order; call once, before plan_vmi().
  std::vector<planned_node> plan_nodes();
  /// The namespaces VMIs are spread over.
  const std::vector<std::string>& namespaces() const { return namespaces_; }
  /// VMI `index` (0-based); call in index order, as the generator's sequence is the seed's.
  planned_vmi plan_vmi(int index);

  const scenario_constraints& constraints() const { return constraints_; }
  const std::vector<std::string>& node_names() const { return node_names_; }
  bool longhorn() const { return longhorn_; }

private:
  scenario_options options_;
  bool longhorn_;
  bool portworx_;
  const char* driver_;
  const char* storage_class_;
  std::string now_;
  std::mt19937_64 rng_;
  scenario_constraints constraints_;
  std::vector<std::string> node_names_;
  std::vector<std::string> namespaces_;
  std::vector<bool> misplaced_;
  std::vector<bool> pinned_;
  std::vector<bool> without_virt_handler_; // by node index
};

} // namespace schedopt::sim
