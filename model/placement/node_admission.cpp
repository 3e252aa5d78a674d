// Node admission rules, checked in the order an operator fixes them: node state first,
// then the VMI's placement constraints, then capacity.
#include "model/placement/node_admission.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>
#include <string_view>

#include "model/ownership_labels.hpp"
#include "model/placement/node_refusals.hpp"
#include "model/quantity.hpp"

namespace schedopt {

namespace {

std::optional<int64_t> as_integer(const std::string& s) {
  if (s.empty())
    return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size())
    return std::nullopt;
  return v;
}

bool is_placed(const virtual_machine_instance& vmi) {
  return !vmi.node_name.empty() && vmi.phase != "Succeeded" && vmi.phase != "Failed";
}

void add(node_usage& u, const resource_list& r) {
  u.cpu_millis += r.cpu_millis.value_or(0);
  u.memory_bytes += r.memory_bytes.value_or(0);
}

} // namespace

void mark_evacuating_nodes(std::vector<node>& nodes,
                           const shared_list<virtual_machine_instance>& vmis) {
  std::set<std::string_view> evacuated;
  for (const auto& v : vmis)
    if (!v->evacuation_node_name.empty())
      evacuated.insert(std::string_view{v->evacuation_node_name});
  for (auto& n : nodes)
    n.evacuating = evacuated.count(n.metadata.name) > 0;
}

int64_t launcher_memory_overhead(const virtual_machine_instance& vmi) {
  const int64_t mib = 1024 * 1024;
  return vmi.requests.memory_bytes.value_or(0) / 512 + (220 + 8 + 32) * mib
         + static_cast<int64_t>(vmi.vcpus) * 8 * mib;
}

resource_list pod_requests(const virtual_machine_instance& vmi) {
  resource_list out = vmi.requests;
  if (out.memory_bytes)
    *out.memory_bytes += launcher_memory_overhead(vmi);
  return out;
}

std::map<std::string, node_usage>
usage_by_node(const shared_list<virtual_machine_instance>& vmis,
              const std::vector<virtual_machine_instance_migration>& vmims) {
  std::map<std::string, node_usage> out;
  for (const auto& v : vmis)
    if (is_placed(*v))
      add(out[v->node_name], pod_requests(*v));
  // A running schedopt VMIM pinned to a node holds room there for its VMI. The VMIs
  // behind the (few) VMIMs are found in one more pass, not through a map of every VMI:
  // building that map delayed the first VMIM of a large fleet.
  std::map<std::string, std::vector<std::string>> pinned; // "<ns>/<vmi>" -> targets
  for (const auto& m : vmims) {
    if (!is_schedopt_migration(m) || is_final_phase(m.phase))
      continue;
    if (auto pin = m.added_node_selector.find(labels::hostname);
        pin != m.added_node_selector.end())
      pinned[m.metadata.namespace_ + "/" + m.vmi_name].push_back(pin->second);
  }
  if (pinned.empty())
    return out;
  for (const auto& v : vmis) {
    auto p = pinned.find(v->metadata.namespace_ + "/" + v->metadata.name);
    if (p == pinned.end())
      continue;
    for (const auto& target : p->second)
      if (v->node_name != target)
        add(out[target], pod_requests(*v));
  }
  return out;
}

std::optional<std::string> unmatched_node_selector(const string_map& selector, const node& n) {
  for (const auto& [key, value] : selector) {
    auto it = n.metadata.labels.find(key);
    if (it == n.metadata.labels.end() || it->second != value)
      return key + "=" + value;
  }
  return std::nullopt;
}

bool matches(const node_selector_requirement& req, const node& n, bool field) {
  std::optional<std::string> actual;
  if (field) {
    if (req.key == "metadata.name")
      actual = n.metadata.name;
  } else if (auto it = n.metadata.labels.find(req.key); it != n.metadata.labels.end()) {
    actual = it->second;
  }
  auto listed = [&] {
    return actual
           && std::find(req.values.begin(), req.values.end(), *actual) != req.values.end();
  };
  if (req.op == "In")
    return listed();
  if (req.op == "NotIn")
    return !listed();
  if (req.op == "Exists")
    return actual.has_value();
  if (req.op == "DoesNotExist")
    return !actual.has_value();
  if (req.op == "Gt" || req.op == "Lt") {
    if (!actual || req.values.size() != 1)
      return false;
    auto have = as_integer(*actual);
    auto bound = as_integer(req.values.front());
    if (!have || !bound)
      return false;
    return req.op == "Gt" ? *have > *bound : *have < *bound;
  }
  return false; // an operator Kubernetes does not know selects nothing
}

bool matches_required_affinity(const std::vector<node_selector_term>& terms, const node& n) {
  if (terms.empty())
    return true;
  for (const auto& term : terms) {
    if (term.match_expressions.empty() && term.match_fields.empty())
      continue;
    bool all = true;
    for (const auto& r : term.match_expressions)
      all = all && matches(r, n, false);
    for (const auto& r : term.match_fields)
      all = all && matches(r, n, true);
    if (all)
      return true;
  }
  return false;
}

bool tolerates(const toleration& t, const taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect)
    return false;
  if (t.op == "Exists")
    return t.key.empty() || t.key == taint.key;
  // Equal, the default operator
  return t.key == taint.key && t.value == taint.value;
}

const taint* untolerated_taint(const std::vector<toleration>& tolerations, const node& n) {
  for (const auto& taint : n.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute")
      continue;
    bool covered = std::any_of(tolerations.begin(), tolerations.end(),
                               [&](const toleration& t) { return tolerates(t, taint); });
    if (!covered)
      return &taint;
  }
  return nullptr;
}

std::string describe(const taint& t) {
  return t.key + (t.value.empty() ? "" : "=" + t.value) + ":" + t.effect;
}

namespace {

// The wordings every kind shares are in model/node_refusals.hpp.
std::optional<std::string> ready_rule(const virtual_machine_instance&, const node& n,
                                      const node_usage&, const node*) {
  return refuse_not_ready(n);
}

std::optional<std::string> schedulable_rule(const virtual_machine_instance&, const node& n,
                                            const node_usage&, const node*) {
  return refuse_cordoned(n);
}

/// A node KubeVirt drains would see the VM evacuated again right after it landed; its
/// drain taint may be tolerated by the VMI, so it is checked apart from the taint rule.
std::optional<std::string> evacuation_rule(const virtual_machine_instance&, const node& n,
                                           const node_usage&, const node*) {
  for (const auto& t : n.taints)
    if (t.key == kubevirt_drain_taint)
      return "being evacuated (taint " + std::string{kubevirt_drain_taint} + ")";
  if (n.evacuating)
    return std::string{"being evacuated (VMIs leaving it)"};
  return std::nullopt;
}

/// KubeVirt builds a virt-launcher pod only for a node whose virt-handler is up: its
/// node selector always holds kubevirt.io/schedulable=true (nodeselectorrenderer.go).
std::optional<std::string> kubevirt_rule(const virtual_machine_instance&, const node& n,
                                         const node_usage&, const node*) {
  auto it = n.metadata.labels.find("kubevirt.io/schedulable");
  if (it == n.metadata.labels.end() || it->second != "true")
    return std::string{"kubevirt.io/schedulable is not true (virt-handler not ready)"};
  return std::nullopt;
}

/// The node selector KubeVirt's migration controller adds to the target pod for the
/// VMI's CPU (pkg/virt-controller/watch/migration/migration.go createTargetPod,
/// prepareNodeSelectorForHostCpuModel; services/template.go for a named model): a
/// host-model VMI (the default model) needs its source node's host model and required
/// features; a named model needs that model; host-passthrough needs nothing. The first
/// label the target lacks, as "key=true".
std::optional<std::string> missing_cpu_label(const virtual_machine_instance& vmi, const node& n,
                                             const node* source) {
  auto has = [&n](const std::string& key) {
    auto it = n.metadata.labels.find(key);
    return it != n.metadata.labels.end() && it->second == "true";
  };
  const std::string& model = vmi.cpu_model;
  if (model == "host-passthrough")
    return std::nullopt;
  if (!model.empty() && model != "host-model") {
    auto key = "cpu-model.node.kubevirt.io/" + model;
    return has(key) ? std::nullopt : std::optional<std::string>{key + "=true"};
  }
  if (!source)
    return std::nullopt; // the source node is unknown: nothing to match
  static const std::string host_model = "host-model-cpu.node.kubevirt.io/";
  static const std::string required = "host-model-required-features.node.kubevirt.io/";
  for (const auto& [key, value] : source->metadata.labels) {
    if (value != "true")
      continue;
    std::string wanted;
    if (key.compare(0, host_model.size(), host_model) == 0)
      wanted = "cpu-model-migration.node.kubevirt.io/" + key.substr(host_model.size());
    else if (key.compare(0, required.size(), required) == 0)
      wanted = "cpu-feature.node.kubevirt.io/" + key.substr(required.size());
    if (!wanted.empty() && !has(wanted))
      return wanted + "=true";
  }
  return std::nullopt;
}

std::optional<std::string> cpu_model_rule(const virtual_machine_instance& vmi, const node& n,
                                          const node_usage&, const node* source) {
  if (auto label = missing_cpu_label(vmi, n, source))
    return "CPU label " + *label + " missing (the VM's CPU model on its current node)";
  return std::nullopt;
}

std::optional<std::string> node_selector_rule(const virtual_machine_instance& vmi,
                                              const node& n, const node_usage&, const node*) {
  return refuse_node_selector(constraints_of(vmi), n);
}

std::optional<std::string> affinity_rule(const virtual_machine_instance& vmi, const node& n,
                                         const node_usage&, const node*) {
  return refuse_affinity(constraints_of(vmi), n);
}

std::optional<std::string> taint_rule(const virtual_machine_instance& vmi, const node& n,
                                      const node_usage&, const node*) {
  return refuse_taint(constraints_of(vmi), n);
}

std::optional<std::string> memory_rule(const virtual_machine_instance& vmi, const node& n,
                                       const node_usage& used, const node*) {
  if (n.allocatable.memory_bytes && vmi.requests.memory_bytes) {
    auto free = std::max<int64_t>(0, *n.allocatable.memory_bytes - used.memory_bytes);
    auto overhead = launcher_memory_overhead(vmi);
    if (free < *vmi.requests.memory_bytes + overhead)
      return format_memory(free) + " memory free, needs "
             + format_memory(*vmi.requests.memory_bytes) + " + " + format_memory(overhead)
             + " virt-launcher overhead";
  }
  return std::nullopt;
}

std::optional<std::string> cpu_rule(const virtual_machine_instance& vmi, const node& n,
                                    const node_usage& used, const node*) {
  return refuse_cpu(vmi.requests.cpu_millis, n, used.cpu_millis);
}

} // namespace

const std::vector<admission_rule>& admission_rules() {
  static const std::vector<admission_rule> rules{
    {"ready", ready_rule},
    {"schedulable", schedulable_rule},
    {"evacuation", evacuation_rule},
    {"kubevirt", kubevirt_rule},
    {"cpuModel", cpu_model_rule},
    {"nodeSelector", node_selector_rule},
    {"requiredNodeAffinity", affinity_rule},
    {"taints", taint_rule},
    {"memory", memory_rule},
    {"cpu", cpu_rule},
  };
  return rules;
}

std::optional<std::string> refusal(const virtual_machine_instance& vmi, const node& n,
                                   const node_usage& used, const node* source) {
  for (const auto& rule : admission_rules())
    if (auto why = rule.check(vmi, n, used, source))
      return why;
  return std::nullopt;
}

} // namespace schedopt
