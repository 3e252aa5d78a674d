// Clearing with swap releases the memory (clear() keeps a container's capacity).
#include "model/kinds/pod_hyperconvergence/pod_store_fields.hpp"

namespace schedopt::pod_hyperconvergence {

void keep_decision_fields(pod& p, const kept_fields&) {
  string_map{}.swap(p.metadata.annotations);
  std::vector<condition> conditions;
  for (auto& c : p.conditions)
    if (c.type == "Ready" || c.type == "PodScheduled") {
      conditions.push_back(std::move(c));
      std::string{}.swap(conditions.back().last_transition_time);
    }
  p.conditions.swap(conditions);
}

void keep_decision_fields(stateful_set& s, const kept_fields& kept) {
  keep_annotations(s.metadata.annotations, kept.cool_off_annotations);
}

void keep_decision_fields(replica_set& s, const kept_fields& kept) {
  keep_annotations(s.metadata.annotations, kept.cool_off_annotations);
}

} // namespace schedopt::pod_hyperconvergence
