// The part of `schedopt explain` every kind shares: where the object's volumes keep their
// replicas, how each node scores and which admission rules it passes, and the per-run
// cap; and its renderings, so both kinds word the same facts the same way. Each kind's
// explanation (model/kinds/<kind>/) derives from placement_explanation and adds its own.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/placement/node_usage.hpp"
#include "model/objects.hpp"
#include "model/timestamp.hpp"

namespace schedopt {

/// A claim → its PV → the driver's replica nodes.
struct claim_explanation {
  std::string claim;             // PVC (or DataVolume) name
  std::string persistent_volume; // "" when the PVC is missing or unbound
  bool driver_owned = false;     // counted in the scores
  std::vector<std::string> replica_nodes;
  /// "PVC not found", "PVC not bound", "PV not found", or the driver's error.
  std::string problem;
};

/// One admission rule on one node; `detail` is the refusal when it failed.
struct rule_result {
  std::string rule; // the kind's admission rule names
  bool passed = true;
  std::string detail;
};

/// One node as the evaluation weighed it.
struct node_explanation {
  std::string name;
  int score = 0; // the object's driver volumes with a replica here
  bool current = false;
  bool best = false;              // a node of the best score
  bool found = true;              // in the node list
  std::vector<rule_result> rules; // the kind's rules in order; empty when not found
  bool allowed = false;           // every rule passed
  bool target = false;            // one of the evaluation's target nodes
  /// "target", "current node", "refused: <first refusal>", "score not above the current
  /// node's", ... (the kind's words)
  std::string result;
  resource_list allocatable;
  node_usage used; // requests there when the object was judged, earlier targets included
};

struct per_run_cap {
  int64_t max_non_hyperconverged_per_run = 0;
  int64_t position = 0; // 1-based among the candidates every filter let through; 0: none
  bool deferred = false; // outstanding: over the cap, left for the next request
};

/// The placement facts of one explanation.
struct placement_explanation {
  int current_score = 0;
  int best_score = 0;
  std::vector<std::string> best_nodes;
  std::vector<std::string> target_nodes;
  std::vector<node_explanation> nodes; // score descending, then name
  per_run_cap cap;
};

/// The kind's admission rules, one by one, for a node with `used` already there.
using node_rules = std::function<std::vector<rule_result>(const node& n, const node_usage& used)>;

/// A node_explanation for every listed node and for every scored node the list lacks
/// (found = false), with its score, its rules (`rules_on`) and the marks `ex` decides
/// (current, best, target); sorted by score descending, then name. `result` is left to
/// the kind.
std::vector<node_explanation> weigh_nodes(const std::vector<node>& nodes,
                                          const std::map<std::string, int>& scores,
                                          const std::map<std::string, node_usage>& usage,
                                          const std::string& current_node,
                                          const placement_explanation& ex,
                                          const node_rules& rules_on);

// -- renderings

nlohmann::json optional_time_json(const std::optional<timestamp>& t);

nlohmann::json claim_json(const claim_explanation& c);

/// Adds currentScore, bestScore, bestNodes, targetNodes, nodes and perRunCap to `o`.
void add_placement_json(nlohmann::json& o, const placement_explanation& p);

std::string yes_no(bool b);

/// "2/3": the current node's score of the best; "" when no node scores.
std::string score_text(const placement_explanation& p);

/// "worker-3, worker-5 (score 3)".
std::string best_nodes_text(const placement_explanation& p);

/// "maxNonHyperconvergedPerRun 100: candidate 4, within the cap", ...
std::string cap_line(const per_run_cap& c);

/// The CLAIM, PV, DRIVER and REPLICA NODES cells of a volume row (the problem instead of
/// the replica nodes when there is one).
std::vector<std::string> claim_cells(const claim_explanation& c);

/// "Nodes:" and a table with one column per rule, named from the rules themselves, so a
/// rule added to a kind gets its column instead of shifting the others under wrong
/// heads; "" when there are no nodes.
std::string nodes_section(const std::vector<node_explanation>& nodes);

} // namespace schedopt
