// Each filter names the upstream code it follows. kube-scheduler's plugins live in
// kubernetes/kubernetes pkg/scheduler/framework/plugins; the matching rules they call
// are in kubernetes/component-helpers scheduling/corev1 (v0.36.3) and
// kubernetes/api core/v1/toleration.go.
#include "sim/target_pod_scheduler.hpp"

#include <algorithm>

#include "model/quantity.hpp"

#include "sim/json_fields.hpp"

namespace schedopt::sim {

namespace {

json labels_of(const json& node) {
  return node.value("/metadata/labels"_json_pointer, json::object());
}

/// component-helpers nodeaffinity.go nodeSelectorRequirementsAsSelector: In, NotIn,
/// Exists, DoesNotExist, Gt, Lt (integers) against the node's labels.
bool label_requirement_holds(const json& req, const json& labels) {
  auto key = text_of(req, "key");
  auto op = text_of(req, "operator");
  auto values = req.value("values", json::array());
  bool has = labels.contains(key) && labels[key].is_string();
  auto value = has ? labels[key].get<std::string>() : std::string{};
  auto in = [&] { return std::find(values.begin(), values.end(), value) != values.end(); };
  if (op == "In")
    return has && in();
  if (op == "NotIn")
    return !has || !in();
  if (op == "Exists")
    return has;
  if (op == "DoesNotExist")
    return !has;
  if ((op == "Gt" || op == "Lt") && has && values.size() == 1 && values[0].is_string()) {
    try {
      long long have = std::stoll(value), want = std::stoll(values[0].get<std::string>());
      return op == "Gt" ? have > want : have < want;
    } catch (...) {
      return false;
    }
  }
  return false; // an invalid requirement matches nothing
}

/// nodeSelectorRequirementsAsFieldSelector: metadata.name only, In or NotIn one value.
bool field_requirement_holds(const json& req, const json& node) {
  if (text_of(req, "key") != "metadata.name")
    return false;
  auto values = req.value("values", json::array());
  if (values.size() != 1)
    return false;
  bool equal = values[0] == node.value("/metadata/name"_json_pointer, std::string{});
  auto op = text_of(req, "operator");
  return op == "In" ? equal : op == "NotIn" ? !equal : false;
}

/// nodeaffinity.go nodeSelectorTerm.match: every requirement of the term; an empty term
/// matches nothing (isEmptyNodeSelectorTerm).
bool term_matches(const json& term, const json& node, const json& labels) {
  auto exprs = term.value("matchExpressions", json::array());
  auto fields = term.value("matchFields", json::array());
  if (exprs.empty() && fields.empty())
    return false;
  for (const auto& r : exprs)
    if (!label_requirement_holds(r, labels))
      return false;
  for (const auto& r : fields)
    if (!field_requirement_holds(r, node))
      return false;
  return true;
}

/// kubernetes/api core/v1 toleration.go ToleratesTaint.
bool tolerates(const json& t, const json& taint) {
  auto effect = text_of(t, "effect");
  if (!effect.empty() && effect != text_of(taint, "effect"))
    return false;
  auto key = text_of(t, "key");
  auto op = text_of(t, "operator");
  if (key.empty())
    return op == "Exists"; // an empty key with Exists tolerates everything
  if (key != text_of(taint, "key"))
    return false;
  if (op == "Exists")
    return true;
  return (op.empty() || op == "Equal") && text_of(t, "value") == text_of(taint, "value");
}

int64_t quantity(const json& resources, const char* key, int64_t scale) {
  auto v = resources.find(key);
  if (v == resources.end() || !v->is_string())
    return 0;
  return parse_quantity(v->get<std::string>(), scale).value_or(0);
}

} // namespace

bool matches_node_selector_terms(const json& terms, const json& node) {
  if (!terms.is_array())
    return false;
  auto labels = labels_of(node);
  return std::any_of(terms.begin(), terms.end(), [&](const json& term) { return term_matches(term, node, labels); });
}

int64_t launcher_memory_overhead(const json& vmi) {
  // kubevirt pkg/virt-controller/services/renderresources.go GetMemoryOverhead (1.5 and
  // 1.6), the terms of a plain x86 VM: page tables (guest memory / 512), the fixed
  // processes (virt-launcher-monitor 25Mi, virt-launcher 100Mi, virtlogd 25Mi, virtqemud
  // 40Mi, QEMU 30Mi), 8Mi per vCPU, 8Mi for the IOThread and 32Mi of video.
  const int64_t mib = 1024 * 1024;
  auto requests = vmi.value("/spec/domain/resources/requests"_json_pointer, json::object());
  int64_t guest = quantity(requests, "memory", 1);
  auto cpu = vmi.value("/spec/domain/cpu"_json_pointer, json::object());
  auto count = [&](const char* key) { return std::max<int64_t>(1, cpu.value(key, int64_t{1})); };
  int64_t vcpus = count("sockets") * count("cores") * count("threads");
  return guest / 512 + 220 * mib + vcpus * 8 * mib + 8 * mib + 32 * mib;
}

target_pod target_pod_for(const json& vmi, const json& vmim, const json* source_node) {
  target_pod pod;
  // migration.go createTargetPod (1.6): addedNodeSelector first, then the template's
  // selector over it, so the VM's own keys win on a clash. A VMIM of an older version
  // never holds the field (its schema prunes it).
  auto added = vmim.value("/spec/addedNodeSelector"_json_pointer, json::object());
  if (added.is_object())
    pod.node_selector = added;
  // nodeselectorrenderer.go Render: kubevirt.io/schedulable always, then the VMI's
  // nodeSelector, then a named CPU model's label.
  pod.node_selector["kubevirt.io/schedulable"] = "true";
  auto selector = vmi.value("/spec/nodeSelector"_json_pointer, json::object());
  if (selector.is_object())
    for (const auto& [k, v] : selector.items())
      pod.node_selector[k] = v;
  auto model = vmi.value("/spec/domain/cpu/model"_json_pointer, std::string{"host-model"});
  if (model.empty())
    model = "host-model"; // pkg/defaults setDefaultCPUModel: v1.DefaultCPUModel
  if (model != "host-model" && model != "host-passthrough")
    pod.node_selector["cpu-model.node.kubevirt.io/" + model] = "true";
  // createTargetPod, prepareNodeSelectorForHostCpuModel: a host-model VMI needs the
  // source node's host model (as cpu-model-migration.node.kubevirt.io/<Model>) and its
  // required features (as cpu-feature.node.kubevirt.io/<f>) on the target.
  if (model == "host-model" && source_node) {
    auto source_labels = labels_of(*source_node); // named: items() of a temporary dangles
    const std::string host_model = "host-model-cpu.node.kubevirt.io/";
    const std::string required = "host-model-required-features.node.kubevirt.io/";
    for (const auto& [k, v] : source_labels.items()) {
      if (k.rfind(host_model, 0) == 0)
        pod.node_selector["cpu-model-migration.node.kubevirt.io/" + k.substr(host_model.size())] = v;
      if (k.rfind(required, 0) == 0)
        pod.node_selector["cpu-feature.node.kubevirt.io/" + k.substr(required.size())] = v;
    }
  }
  pod.required_terms = vmi.value(
      "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms"_json_pointer,
      json::array());
  pod.tolerations = vmi.value("/spec/tolerations"_json_pointer, json::array());
  // template.go WithMemoryOverhead: the compute container asks for the VMI's memory plus
  // the overhead.
  auto requests = vmi.value("/spec/domain/resources/requests"_json_pointer, json::object());
  pod.requests.cpu_millis = quantity(requests, "cpu", 1000);
  pod.requests.memory_bytes = quantity(requests, "memory", 1) + launcher_memory_overhead(vmi);
  return pod;
}

std::optional<std::string> scheduler_refusal(const target_pod& pod, const json& node, const pod_resources& used) {
  // nodeunschedulable.go Filter: spec.unschedulable without a toleration of
  // node.kubernetes.io/unschedulable:NoSchedule.
  if (node.value("/spec/unschedulable"_json_pointer, false)) {
    json taint = {{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}};
    if (std::none_of(pod.tolerations.begin(), pod.tolerations.end(),
                     [&](const json& t) { return tolerates(t, taint); }))
      return "node(s) were unschedulable";
  }
  // The node lifecycle controller taints a node that is not Ready
  // (node.kubernetes.io/not-ready:NoSchedule); simulated nodes carry only the condition.
  bool ready = false;
  for (const auto& c : node.value("/status/conditions"_json_pointer, json::array()))
    if (text_of(c, "type") == "Ready")
      ready = text_of(c, "status") == "True";
  if (!ready)
    return "node(s) were not ready";
  // nodeaffinity.go Filter: spec.nodeSelector, then the required terms (ORed).
  auto labels = labels_of(node);
  for (const auto& [k, v] : pod.node_selector.items())
    if (!labels.contains(k) || labels[k] != v)
      return "node(s) didn't match Pod's node affinity/selector";
  if (!pod.required_terms.empty()
      && std::none_of(pod.required_terms.begin(), pod.required_terms.end(),
                      [&](const json& term) { return term_matches(term, node, labels); }))
    return "node(s) didn't match Pod's node affinity/selector";
  // tainttoleration.go Filter: the first NoSchedule or NoExecute taint not tolerated.
  for (const auto& taint : node.value("/spec/taints"_json_pointer, json::array())) {
    auto effect = text_of(taint, "effect");
    if (effect != "NoSchedule" && effect != "NoExecute")
      continue;
    if (std::none_of(pod.tolerations.begin(), pod.tolerations.end(),
                     [&](const json& t) { return tolerates(t, taint); }))
      return "node(s) had untolerated taint {" + text_of(taint, "key") + ": " + text_of(taint, "value") + "}";
  }
  // noderesources/fit.go fitsRequest: requests against allocatable minus what is
  // requested there.
  auto allocatable = node.value("/status/allocatable"_json_pointer, json::object());
  if (allocatable.contains("memory")
      && pod.requests.memory_bytes > quantity(allocatable, "memory", 1) - used.memory_bytes)
    return "Insufficient memory";
  if (allocatable.contains("cpu") && pod.requests.cpu_millis > quantity(allocatable, "cpu", 1000) - used.cpu_millis)
    return "Insufficient cpu";
  return std::nullopt;
}

} // namespace schedopt::sim
