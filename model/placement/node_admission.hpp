// docs/design.md §2.5: may a VMI run on a node? The scheduler's rules schedopt mirrors, one check
// each (readiness, cordon, nodeSelector, required node affinity, taints, room), and the
// first refusal worded for a NoTargetNode detail.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/placement/node_usage.hpp"
#include "model/objects.hpp"

namespace schedopt {

/// Per node: the requests of every VMI placed there (status.nodeName, not Succeeded or
/// Failed) plus those of VMIs a non-final schedopt VMIM is pinned toward
/// (spec.addedNodeSelector hostname), unless the VMI already runs there.
std::map<std::string, node_usage>
usage_by_node(const shared_list<virtual_machine_instance>& vmis,
              const std::vector<virtual_machine_instance_migration>& vmims);

/// KubeVirt's nodeDrainTaintKey default: a node carrying this taint (any effect) is
/// being drained by KubeVirt's evacuation controller.
inline constexpr const char* kubevirt_drain_taint = "kubevirt.io/drain";

/// Sets node::evacuating on every node some VMI names in status.evacuationNodeName (the
/// VMIs KubeVirt is moving off it), clearing it on the others. One pass over the VMIs.
void mark_evacuating_nodes(std::vector<node>& nodes,
                           const shared_list<virtual_machine_instance>& vmis);

/// The memory virt-launcher asks for on top of the VMI's request (KubeVirt 1.5/1.6
/// renderresources.go GetMemoryOverhead, plain x86 VM): guest memory / 512 for page
/// tables, 220Mi of fixed processes, 8Mi per vCPU, 8Mi IOThread, 32Mi video.
int64_t launcher_memory_overhead(const virtual_machine_instance& vmi);

/// What the VMI's virt-launcher pod asks the scheduler for: its requests, memory plus
/// launcher_memory_overhead (none when it asks no memory).
resource_list pod_requests(const virtual_machine_instance& vmi);

/// The first spec.nodeSelector pair the node's labels lack, as "key=value"; nullopt
/// when every pair matches.
std::optional<std::string> unmatched_node_selector(const string_map& selector, const node& n);

/// One requirement against the node's labels (match_fields: against metadata.name).
bool matches(const node_selector_requirement& req, const node& n, bool field);

/// Required node affinity: some term whose every requirement holds. No terms: true.
/// A term without requirements matches nothing, as in Kubernetes.
bool matches_required_affinity(const std::vector<node_selector_term>& terms, const node& n);

bool tolerates(const toleration& t, const taint& taint);

/// The first NoSchedule or NoExecute taint no toleration covers; nullptr when none.
const taint* untolerated_taint(const std::vector<toleration>& tolerations, const node& n);

/// "key=value:Effect", or "key:Effect" for a taint without value.
std::string describe(const taint& t);

/// One admission rule: why `vmi`, now on `source` (null when unknown), may not run on
/// `n` with `used` already there, or nullopt when this rule lets it.
using admission_check = std::optional<std::string> (*)(const virtual_machine_instance& vmi,
                                                       const node& n, const node_usage& used,
                                                       const node* source);

struct admission_rule {
  const char* name; // "ready", "schedulable", "evacuation", "kubevirt", "cpuModel", "nodeSelector",
                    // "requiredNodeAffinity", "taints", "memory", "cpu"
  admission_check check;
};

/// The rules refusal() applies, in its order; `schedopt explain` reports each one.
const std::vector<admission_rule>& admission_rules();

/// Why `vmi` may not run on `n` with `used` already there, e.g. `not Ready`, `cordoned`,
/// `being evacuated (taint kubevirt.io/drain)`, `being evacuated (VMIs leaving it)`,
/// `CPU label cpu-model-migration.node.kubevirt.io/Icelake-Server=true missing (...)`,
/// `nodeSelector kubernetes.io/arch=arm64 not matched`, `required node affinity not
/// matched`, `taint dedicated=db:NoSchedule not tolerated`, `2Gi memory free, needs
/// 8Gi`, `500m CPU free, needs 2` (the first admission_rules() entry that refuses);
/// nullopt when it may. An allocatable amount the node does not report, or a request
/// the VMI does not make, is not checked.
std::optional<std::string> refusal(const virtual_machine_instance& vmi, const node& n,
                                   const node_usage& used, const node* source = nullptr);

} // namespace schedopt
