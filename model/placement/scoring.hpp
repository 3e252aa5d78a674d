// docs/design.md §2.4–2.5: where should a VMI run, given where its volumes' replicas live?
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/placement/replica_nodes.hpp"

namespace schedopt {

enum class placement { hyperconverged, semi, non };

const char* to_string(placement p);

struct node_readiness {
  bool ready = false;
  bool schedulable = false; // !spec.unschedulable
};

struct placement_verdict {
  placement verdict = placement::hyperconverged;
  int best_score = 0;          // replicas of the VMI's driver volumes on the best node(s)
  int current_score = 0;       // same count for the node the VMI runs on
  std::vector<std::string> best_nodes;   // every node scoring best_score, sorted
  std::vector<std::string> target_nodes; // best nodes that are Ready, schedulable and not current
};

/// One point per volume holding a replica on the node; nodes without any absent.
std::map<std::string, int> node_scores(const std::vector<replica_nodes>& replicas);

/// Sorts and de-duplicates, so a node listed twice for one volume scores once.
void normalize(replica_nodes& nodes);

/// Scores every node by how many of `replica_nodes` (one set per driver volume) hold it.
/// `nodes` gives readiness by node name; a best node absent from it is not a target.
/// Precondition: replica_nodes is not empty (a VMI without driver volumes is no candidate).
/// When no node holds any replica (best score 0) nowhere is better than where the VMI
/// runs: the verdict is hyperconverged with no best or target nodes.
placement_verdict score_placement(const std::vector<replica_nodes>& replicas,
                                  const std::string& current_node,
                                  const std::map<std::string, node_readiness>& nodes);

inline bool is_candidate(const placement_verdict& v) {
  return v.verdict != placement::hyperconverged;
}

} // namespace schedopt
