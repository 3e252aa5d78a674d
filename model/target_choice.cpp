// Least-loaded target node, so parallel migrations spread over the replica nodes.
#include "model/target_choice.hpp"

#include "model/vmim_outcome.hpp"

namespace schedopt {

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
