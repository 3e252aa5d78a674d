// Node admission for pods, on model/node_admission.hpp's matchers: node state first,
// then the pod's placement constraints, then room.
#include "model/kinds/pod_hyperconvergence/pod_admission.hpp"

#include <algorithm>

#include "model/kinds/pod_hyperconvergence/pod_evaluation.hpp" // is_virt_launcher
#include "model/placement/node_refusals.hpp"
#include "model/quantity.hpp"

namespace schedopt::pod_hyperconvergence {

namespace {

// The shared wordings (model/node_refusals.hpp); memory is the pod's own request.
std::optional<std::string> ready_rule(const pod&, const node& n, const node_usage&) {
  return refuse_not_ready(n);
}

std::optional<std::string> schedulable_rule(const pod&, const node& n, const node_usage&) {
  return refuse_cordoned(n);
}

std::optional<std::string> node_selector_rule(const pod& p, const node& n, const node_usage&) {
  return refuse_node_selector(p.constraints, n);
}

std::optional<std::string> affinity_rule(const pod& p, const node& n, const node_usage&) {
  return refuse_affinity(p.constraints, n);
}

std::optional<std::string> taint_rule(const pod& p, const node& n, const node_usage&) {
  return refuse_taint(p.constraints, n);
}

std::optional<std::string> memory_rule(const pod& p, const node& n, const node_usage& used) {
  if (n.allocatable.memory_bytes && p.requests.memory_bytes) {
    auto free = std::max<int64_t>(0, *n.allocatable.memory_bytes - used.memory_bytes);
    if (free < *p.requests.memory_bytes)
      return format_memory(free) + " memory free, needs " + format_memory(*p.requests.memory_bytes);
  }
  return std::nullopt;
}

std::optional<std::string> cpu_rule(const pod& p, const node& n, const node_usage& used) {
  return refuse_cpu(p.requests.cpu_millis, n, used.cpu_millis);
}

bool holds_room(const pod& p) {
  return !p.node_name.empty() && p.phase != "Succeeded" && p.phase != "Failed";
}

} // namespace

std::map<std::string, node_usage> usage_by_node(const shared_list<pod>& pods) {
  std::map<std::string, node_usage> out;
  for (const auto& p : pods) {
    if (!holds_room(*p))
      continue;
    auto& u = out[p->node_name];
    u.cpu_millis += p->requests.cpu_millis.value_or(0);
    u.memory_bytes += p->requests.memory_bytes.value_or(0);
  }
  return out;
}

std::map<std::string, node_usage>
usage_by_node(const shared_list<pod>& pods, const shared_list<virtual_machine_instance>& vmis,
              const std::vector<virtual_machine_instance_migration>& vmims) {
  auto out = schedopt::usage_by_node(vmis, vmims);
  for (const auto& p : pods) {
    if (!holds_room(*p) || is_virt_launcher(*p))
      continue;
    auto& u = out[p->node_name];
    u.cpu_millis += p->requests.cpu_millis.value_or(0);
    u.memory_bytes += p->requests.memory_bytes.value_or(0);
  }
  return out;
}

const std::vector<pod_admission_rule>& pod_admission_rules() {
  static const std::vector<pod_admission_rule> rules{
    {"ready", ready_rule},
    {"schedulable", schedulable_rule},
    {"nodeSelector", node_selector_rule},
    {"requiredNodeAffinity", affinity_rule},
    {"taints", taint_rule},
    {"memory", memory_rule},
    {"cpu", cpu_rule},
  };
  return rules;
}

std::optional<std::string> refusal(const pod& p, const node& n, const node_usage& used) {
  for (const auto& rule : pod_admission_rules())
    if (auto why = rule.check(p, n, used))
      return why;
  return std::nullopt;
}

pod_targets best_targets(const pod& p, const std::vector<std::string>& best_nodes,
                         const std::map<std::string, const node*>& nodes,
                         const std::map<std::string, node_usage>& usage) {
  pod_targets out;
  auto sorted = best_nodes;
  std::sort(sorted.begin(), sorted.end());
  for (const auto& name : sorted) {
    if (name == p.node_name)
      continue;
    auto why = refusal_at(name, nodes, usage, [&](const node& n, const node_usage& used) {
      return refusal(p, n, used);
    });
    if (why)
      out.refusals.push_back(name + ": " + *why);
    else
      out.nodes.push_back(name);
  }
  return out;
}

void hold_room(std::map<std::string, node_usage>& usage, const pod& p,
               const std::vector<std::string>& targets) {
  for (const auto& t : targets) {
    usage[t].cpu_millis += p.requests.cpu_millis.value_or(0);
    usage[t].memory_bytes += p.requests.memory_bytes.value_or(0);
  }
}

} // namespace schedopt::pod_hyperconvergence
