// kube-scheduler's framework (pkg/scheduler/schedule_one.go findNodesThatFitPod,
// prioritizeNodes, selectHost) reduced to the plugins a simulated pod meets, with the
// Stork extender's scores added as prioritizeNodes adds an extender's: score x weight
// (5, Stork's shipped scheduler config, specs/stork-deployment.yaml) x
// (MaxNodeScore / MaxExtenderPriority = 10).
#include "sim/pod_placement.hpp"

#include <algorithm>

#include "model/quantity.hpp"
#include "sim/pod_facts.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

constexpr int64_t stork_weight = 5;
constexpr int64_t extender_scale = 10; // framework.MaxNodeScore / extenderv1.MaxExtenderPriority

int64_t allocatable(const json& node, const char* resource, int64_t scale) {
  auto text = text_at(node, json::json_pointer{std::string{"/status/allocatable/"} + resource});
  return text.empty() ? 0 : parse_quantity(text, scale).value_or(0);
}

/// The scheduling part of a pod, in the shape the shared filters take.
target_pod scheduling_view(const json& pod) {
  target_pod view;
  auto selector = pod.value("/spec/nodeSelector"_json_pointer, json::object());
  if (selector.is_object())
    view.node_selector = selector;
  view.required_terms = pod.value(
    "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms"_json_pointer,
    json::array());
  view.tolerations = pod.value("/spec/tolerations"_json_pointer, json::array());
  view.requests = pod_requests(pod);
  return view;
}

/// volumebinding: a PV without required node affinity admits every node.
bool volume_affinity_holds(const json& terms, const json& node) {
  if (!terms.is_array() || terms.empty())
    return true;
  return matches_node_selector_terms(terms, node);
}

} // namespace

int64_t least_allocated_score(const json& node, const pod_resources& requested) {
  int64_t total = 0;
  int weights = 0;
  auto score = [&](int64_t capacity, int64_t asked) {
    ++weights;
    if (capacity <= 0 || asked > capacity)
      return;
    total += (capacity - asked) * 100 / capacity;
  };
  score(allocatable(node, "cpu", 1000), requested.cpu_millis);
  score(allocatable(node, "memory", 1), requested.memory_bytes);
  return weights == 0 ? 0 : total / weights;
}

int64_t stork_score(const json& node, const std::vector<std::set<std::string>>& replica_nodes,
                    const std::map<std::string, std::string>& zones) {
  auto name = name_of(node);
  auto zone = text_at(node, json::json_pointer{std::string{"/metadata/labels/"} + "topology.kubernetes.io~1zone"});
  int64_t score = 0;
  for (const auto& replicas : replica_nodes) {
    if (replicas.count(name)) {
      score += 100; // nodePriorityScore
      continue;
    }
    bool same_zone = false;
    for (const auto& r : replicas) {
      auto z = zones.find(r);
      if (!zone.empty() && z != zones.end() && z->second == zone)
        same_zone = true;
    }
    if (same_zone)
      score += 25; // zonePriorityScore
  }
  return score == 0 ? 5 : score; // defaultScore
}

placement_decision place_pod(const placement_request& request) {
  placement_decision out;
  const auto& pod = *request.pod;
  auto view = scheduling_view(pod);
  bool storage_aware = text_at(pod, "/spec/schedulerName"_json_pointer) == stork_scheduler_name;
  static const std::vector<json> no_nodes;
  static const std::map<std::string, pod_resources> nothing_used;
  const auto& nodes = request.nodes != nullptr ? *request.nodes : no_nodes;
  const auto& used_by_node = request.used != nullptr ? *request.used : nothing_used;
  std::map<std::string, std::string> zones;
  for (const auto& node : nodes)
    zones[name_of(node)] =
      text_at(node, json::json_pointer{std::string{"/metadata/labels/"} + "topology.kubernetes.io~1zone"});
  std::map<std::string, int> refused;
  std::vector<const json*> sorted;
  for (const auto& node : nodes)
    sorted.push_back(&node);
  std::sort(sorted.begin(), sorted.end(), [](const json* a, const json* b) { return name_of(*a) < name_of(*b); });
  int64_t best = -1;
  for (const auto* node : sorted) {
    auto name = name_of(*node);
    pod_resources used;
    if (auto u = used_by_node.find(name); u != used_by_node.end())
      used = u->second;
    if (auto no = scheduler_refusal(view, *node, used)) {
      ++refused[*no];
      continue;
    }
    // volumebinding.go Filter: every bound PV's node affinity must admit the node.
    bool conflict = false;
    for (const auto& terms : request.volume_affinities)
      if (!volume_affinity_holds(terms, *node))
        conflict = true;
    if (conflict) {
      ++refused["node(s) had volume node affinity conflict"];
      continue;
    }
    pod_resources after{used.cpu_millis + view.requests.cpu_millis, used.memory_bytes + view.requests.memory_bytes};
    int64_t score = least_allocated_score(*node, after);
    if (storage_aware && !request.replica_nodes.empty())
      score += stork_score(*node, request.replica_nodes, zones) * stork_weight * extender_scale;
    out.scores[name] = score;
    if (score > best) {
      best = score;
      out.node = name;
    }
  }
  if (out.node.empty()) {
    // schedule_one.go FitError.Error: "0/N nodes are available: <count> <reason>, ...".
    out.message = "0/" + std::to_string(nodes.size()) + " nodes are available:";
    bool first = true;
    for (const auto& [reason, count] : refused) {
      out.message += (first ? " " : ", ") + std::to_string(count) + " " + reason;
      first = false;
    }
    out.message += ".";
  }
  return out;
}

} // namespace schedopt::sim
