// Scenario scheduling constraints. Node index i sits in zone-(i % 3); a constrained VMI
// gets one of four shapes (zone nodeSelector, zone In affinity, hostname NotIn affinity,
// metadata.name NotIn matchFields) whichever keeps its node and excludes a replica node.
#include "sim/scenario_constraints.hpp"

#include <algorithm>
#include <cmath>

#include <spdlog/spdlog.h>

#include "model/quantity.hpp"
#include "sim/object_store.hpp"
#include "sim/target_pod_scheduler.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

constexpr int64_t stock_memory_ki = 131898060; // what node_object reports
constexpr int64_t stock_cpu_millis = 32000;

std::string zone_name(int index) {
  return "zone-" + std::to_string(index % 3);
}

json requirement(const std::string& key, const char* op, std::vector<std::string> values) {
  return {{"key", key}, {"operator", op}, {"values", std::move(values)}};
}

json required_affinity(json term) {
  return {{"nodeAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution",
             {{"nodeSelectorTerms", json::array({std::move(term)})}}}}}};
}

int64_t memory_request() {
  return parse_quantity(vmi_memory_request).value_or(0);
}

/// What one scenario VMI's virt-launcher pod asks the scheduler for: its request plus
/// the launcher overhead of its shape (2 sockets, as scenario_objects writes it).
int64_t pod_memory() {
  static const int64_t bytes =
    memory_request()
    + launcher_memory_overhead(json{{"spec",
                                     {{"domain",
                                       {{"cpu", {{"sockets", 2}, {"cores", 1}, {"threads", 1}}},
                                        {"resources",
                                         {{"requests", {{"memory", vmi_memory_request}}}}}}}}}});
  return bytes;
}

int64_t cpu_request() {
  return parse_quantity(vmi_cpu_request, 1000).value_or(0);
}

} // namespace

scenario_constraints::scenario_constraints(const scenario_options& options)
  : options_(options), rng_(options.seed ^ 0x636f6e7374726e74ULL) {
  int nodes = std::max(1, options.nodes);
  std::vector<int> order(nodes);
  for (int i = 0; i < nodes; ++i)
    order[i] = i;
  std::shuffle(order.begin(), order.end(), rng_);
  // Tainted from the front, full from the back: apart unless they add up past the nodes.
  for (int i = 0; i < std::min(nodes, std::max(0, options.tainted_nodes)); ++i)
    tainted_.insert(order[i]);
  for (int i = 0; i < std::min(nodes, std::max(0, options.full_nodes)); ++i)
    full_.insert(order[nodes - 1 - i]);
  int vmis = std::max(0, options.vmis);
  std::vector<int> pick(vmis);
  for (int i = 0; i < vmis; ++i)
    pick[i] = i;
  std::shuffle(pick.begin(), pick.end(), rng_);
  auto count = static_cast<int>(std::llround(std::clamp(options.constrained, 0.0, 1.0) * vmis));
  constrained_.assign(vmis, false);
  for (int i = 0; i < count; ++i)
    constrained_[pick[i]] = true;
}

void scenario_constraints::shape_node(json& node, int index) const {
  node["metadata"]["labels"][zone_label] = zone_name(index);
  if (tainted(index))
    node["spec"]["taints"] = json::array({{{"key", dedicated_taint_key},
                                           {"value", dedicated_taint_value},
                                           {"effect", "NoSchedule"}}});
  int nodes = std::max(1, options_.nodes);
  int64_t share = (std::max(0, options_.vmis) + nodes - 1) / nodes;
  int64_t room = 2 * share + 16;
  int64_t memory = std::max(stock_memory_ki, room * pod_memory() / 1024);
  int64_t cpu = std::max(stock_cpu_millis, room * cpu_request());
  for (const char* field : {"allocatable", "capacity"}) {
    node["status"][field]["memory"] = std::to_string(memory) + "Ki";
    node["status"][field]["cpu"] = format_cpu(cpu);
  }
}

std::string scenario_constraints::zone_of(const std::string& node,
                                          const std::vector<std::string>& names) const {
  auto it = std::find(names.begin(), names.end(), node);
  return zone_name(static_cast<int>(it - names.begin()));
}

void scenario_constraints::constrain(vmi_plan& plan, int index,
                                     const std::map<std::string, int>& score,
                                     const std::vector<std::string>& node_names) {
  ++placed_[plan.node];
  if (!tainted_.empty()) {
    auto at = std::find(node_names.begin(), node_names.end(), plan.node) - node_names.begin();
    // Scheduled onto a tainted node means it tolerates the taint; elsewhere half do.
    bool tolerate = tainted(static_cast<int>(at))
                    || std::uniform_int_distribution<int>{0, 1}(rng_) == 1;
    if (tolerate)
      plan.tolerations = json::array({{{"key", dedicated_taint_key},
                                       {"operator", "Equal"},
                                       {"value", dedicated_taint_value},
                                       {"effect", "NoSchedule"}}});
  }
  if (index >= static_cast<int>(constrained_.size()) || !constrained_[index])
    return;
  int best = 0;
  for (const auto& [n, s] : score)
    best = std::max(best, s);
  std::vector<std::string> best_nodes, replica_nodes;
  for (const auto& n : node_names) {
    auto it = score.find(n);
    if (n == plan.node || it == score.end() || it->second == 0)
      continue;
    replica_nodes.push_back(n);
    if (it->second == best)
      best_nodes.push_back(n);
  }
  const auto& from = best_nodes.empty() ? replica_nodes : best_nodes;
  if (from.empty())
    return; // every replica is on its own node: nothing to exclude
  auto excluded = from[std::uniform_int_distribution<std::size_t>{0, from.size() - 1}(rng_)];
  auto home_zone = zone_of(plan.node, node_names);
  bool zones_differ = zone_of(excluded, node_names) != home_zone;
  int shape = std::uniform_int_distribution<int>{0, 3}(rng_);
  if (shape <= 1 && !zones_differ)
    shape += 2; // a zone constraint would not exclude it
  switch (shape) {
    case 0:
      plan.node_selector = {{zone_label, home_zone}};
      break;
    case 1: {
      std::vector<std::string> zones;
      for (int z = 0; z < 3; ++z)
        if (zone_name(z) != zone_of(excluded, node_names))
          zones.push_back(zone_name(z));
      plan.affinity = required_affinity({{"matchExpressions",
                                          json::array({requirement(zone_label, "In", zones)})}});
      break;
    }
    case 2:
      plan.affinity = required_affinity(
        {{"matchExpressions",
          json::array({requirement("kubernetes.io/hostname", "NotIn", {excluded})})}});
      break;
    default:
      plan.affinity = required_affinity(
        {{"matchFields", json::array({requirement("metadata.name", "NotIn", {excluded})})}});
  }
}

void scenario_constraints::finish(object_store& store,
                                  const std::vector<std::string>& node_names) const {
  for (int index : full_) {
    if (index >= static_cast<int>(node_names.size()))
      continue;
    const auto& name = node_names[index];
    auto it = placed_.find(name);
    int64_t used = (it == placed_.end() ? 0 : it->second) * pod_memory();
    auto memory = std::to_string((used + memory_request() / 2) / 1024) + "Ki";
    auto type = store.find_type("nodes");
    auto done = store.modify(
      "nodes", "", name,
      [&](json& obj) {
        obj["status"]["allocatable"]["memory"] = memory;
        obj["status"]["capacity"]["memory"] = memory;
        return true;
      },
      type && type->status_subresource);
    if (!done)
      spdlog::warn("scenario: making node {} full failed: {}", name, done.err().message);
  }
}

} // namespace schedopt::sim
