// The kube-scheduler's verdict on a migration's target virt-launcher pod, computed by the
// simulator from the objects themselves (never by schedopt's own admission rules: the
// simulator is the oracle the controller is tested against).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace schedopt::sim {

using json = nlohmann::json;

struct pod_resources {
  int64_t cpu_millis = 0;
  int64_t memory_bytes = 0;
};

/// The scheduling part of a target pod: what KubeVirt's template service puts in it.
struct target_pod {
  json node_selector = json::object();          // spec.nodeSelector
  json required_terms = json::array();          // required node affinity nodeSelectorTerms
  json tolerations = json::array();             // spec.tolerations
  pod_resources requests;                       // the compute container's requests
};

/// The target pod KubeVirt builds for migrating `vmi` under `vmim`
/// (kubevirt pkg/virt-controller/services/template.go renderLaunchManifest, and
/// pkg/virt-controller/watch/migration/migration.go createTargetPod): the VMI's
/// nodeSelector plus `kubevirt.io/schedulable: "true"`, the VMIM's addedNodeSelector when
/// the version serves it, for a host-model CPU the source node's host-model CPU label,
/// the VMI's required affinity and tolerations, and the VMI's requests plus
/// virt-launcher's memory overhead.
target_pod target_pod_for(const json& vmi, const json& vmim, const json* source_node);

/// virt-launcher's memory overhead for `vmi` (renderresources.go GetMemoryOverhead,
/// the terms that do not depend on devices the simulator does not model).
int64_t launcher_memory_overhead(const json& vmi);

/// component-helpers nodeaffinity.go NodeSelector.Match: whether `node` satisfies any of
/// the nodeSelectorTerms (an empty list matches nothing); also how volumebinding reads a
/// PV's required node affinity.
bool matches_node_selector_terms(const json& terms, const json& node);

/// Why the kube-scheduler's filters refuse `node` for `pod` with `used` already requested
/// there, in the wording of its FailedScheduling message ("node(s) were unschedulable",
/// "node(s) didn't match Pod's node affinity/selector", "node(s) had untolerated taint
/// {key: value}", "Insufficient memory", "Insufficient cpu"); nullopt when it fits.
std::optional<std::string> scheduler_refusal(const target_pod& pod, const json& node, const pod_resources& used);

} // namespace schedopt::sim
