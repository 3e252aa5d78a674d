// docs/design.md §2.5 target nodes (best-scoring nodes the VMI may run on, else the next score
// level above its current node's) and docs/design.md §3.1 target pinning: spread schedopt
// migrations over those nodes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/placement/node_admission.hpp"
#include "model/placement/scoring.hpp"
#include "model/objects.hpp"

namespace schedopt {

struct target_set {
  std::vector<std::string> nodes; // admissible nodes of one score level, sorted
  int score = 0;                  // that level; 0 when `nodes` is empty
  /// "<node>: <why>" for every best-scoring node refused (the current node excluded),
  /// sorted by node: the NoTargetNode detail when `nodes` is empty.
  std::vector<std::string> best_refusals;
};

/// Scores nodes as score_placement does (one point per volume with a replica there) and
/// walks the score levels above the current node's from the best down; the first level
/// with a node `vmi` may run on (node_admission.hpp refusal(), `usage` absent = nothing
/// runs there) gives the targets. A node missing from `nodes` is refused `not found`.
target_set admissible_targets(const virtual_machine_instance& vmi,
                              const std::vector<replica_nodes>& replicas,
                              const std::map<std::string, const node*>& nodes,
                              const std::map<std::string, node_usage>& usage);

/// The refusals joined with "; ", for `NoTargetNode: <detail>` (make_reason caps it).
std::string no_target_detail(const std::vector<std::string>& refusals);

/// The target with the fewest schedopt migrations in flight toward it (`in_flight` by
/// node name; absent = 0); ties go to the smallest name. nullopt when `targets` is empty.
std::optional<std::string> choose_target(const std::vector<std::string>& targets,
                                         const std::map<std::string, int64_t>& in_flight);

/// Counts non-final schedopt VMIMs per pinned node (spec.addedNodeSelector hostname).
std::map<std::string, int64_t>
in_flight_by_target(const std::vector<virtual_machine_instance_migration>& vmims);

} // namespace schedopt
