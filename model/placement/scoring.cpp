// docs/design.md §2.4–2.5 placement scoring. When no node holds any replica (best score 0) there
// is nowhere better to go, so the VMI counts as hyperconverged and is no candidate.
#include "model/placement/scoring.hpp"

#include <algorithm>

namespace schedopt {

const char* to_string(placement p) {
  switch (p) {
    case placement::hyperconverged: return "hyperconverged";
    case placement::semi: return "semi";
    case placement::non: return "non";
  }
  return "unknown";
}

std::map<std::string, int> node_scores(const std::vector<replica_nodes>& replicas) {
  std::map<std::string, int> scores;
  for (const auto& volume : replicas)
    for (const auto& n : volume)
      ++scores[n];
  return scores;
}

void normalize(replica_nodes& nodes) {
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
}

placement_verdict score_placement(const std::vector<replica_nodes>& replicas,
                                  const std::string& current_node,
                                  const std::map<std::string, node_readiness>& nodes) {
  auto scores = node_scores(replicas); // ordered, so best_nodes come out sorted
  placement_verdict v;
  for (const auto& [name, score] : scores)
    v.best_score = std::max(v.best_score, score);
  if (auto it = scores.find(current_node); it != scores.end())
    v.current_score = it->second;
  if (v.best_score == 0)
    return v; // no replicas anywhere: hyperconverged, no targets
  for (const auto& [name, score] : scores) {
    if (score != v.best_score)
      continue;
    v.best_nodes.push_back(name);
    if (name == current_node)
      continue;
    auto it = nodes.find(name);
    if (it != nodes.end() && it->second.ready && it->second.schedulable)
      v.target_nodes.push_back(name);
  }
  if (v.current_score == v.best_score)
    v.verdict = placement::hyperconverged;
  else if (v.current_score > 0)
    v.verdict = placement::semi;
  else
    v.verdict = placement::non;
  return v;
}

} // namespace schedopt
