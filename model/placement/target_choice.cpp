// Admissible target nodes by score level, and the least-loaded of them, so parallel
// migrations spread over the replica nodes.
#include "model/placement/target_choice.hpp"

#include <functional>

#include "model/placement/scoring.hpp"
#include "model/ownership_labels.hpp"
#include "model/placement/node_refusals.hpp"

namespace schedopt {

target_set admissible_targets(const virtual_machine_instance& vmi,
                              const std::vector<replica_nodes>& replicas,
                              const std::map<std::string, const node*>& nodes,
                              const std::map<std::string, node_usage>& usage) {
  auto scores = node_scores(replicas);
  int current = 0;
  if (auto it = scores.find(vmi.node_name); it != scores.end())
    current = it->second;
  std::map<int, std::vector<std::string>, std::greater<>> levels; // best first
  for (const auto& [name, score] : scores)
    if (score > current && name != vmi.node_name)
      levels[score].push_back(name); // names come sorted from `scores`

  target_set out;
  const node* source = nullptr;
  if (auto s = nodes.find(vmi.node_name); s != nodes.end())
    source = s->second;
  bool best = true;
  for (const auto& [score, names] : levels) {
    for (const auto& name : names) {
      auto why = refusal_at(name, nodes, usage, [&](const node& n, const node_usage& used) {
        return refusal(vmi, n, used, source);
      });
      if (!why)
        out.nodes.push_back(name);
      else if (best)
        out.best_refusals.push_back(name + ": " + *why);
    }
    best = false;
    if (!out.nodes.empty()) {
      out.score = score;
      break;
    }
  }
  return out;
}

std::string no_target_detail(const std::vector<std::string>& refusals) {
  std::string out;
  for (const auto& r : refusals) {
    if (!out.empty())
      out += "; ";
    out += r;
  }
  return out;
}

std::optional<std::string> choose_target(const std::vector<std::string>& targets,
                                         const std::map<std::string, int64_t>& in_flight) {
  std::optional<std::string> best;
  int64_t best_load = 0;
  for (const auto& t : targets) {
    auto it = in_flight.find(t);
    int64_t load = it == in_flight.end() ? 0 : it->second;
    if (!best || load < best_load || (load == best_load && t < *best)) {
      best = t;
      best_load = load;
    }
  }
  return best;
}

std::map<std::string, int64_t>
in_flight_by_target(const std::vector<virtual_machine_instance_migration>& vmims) {
  std::map<std::string, int64_t> out;
  for (const auto& m : vmims) {
    if (!is_schedopt_migration(m) || is_final_phase(m.phase))
      continue;
    auto it = m.added_node_selector.find(labels::hostname);
    if (it != m.added_node_selector.end())
      ++out[it->second];
  }
  return out;
}

} // namespace schedopt
