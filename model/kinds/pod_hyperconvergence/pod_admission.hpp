// docs/design.md §2.5 and §9: may a pod's replacement run on a node? The VM kind's
// scheduler rules (model/node_admission.hpp: readiness, cordon, nodeSelector, required
// node affinity, taints, room) applied to a pod, without KubeVirt's (virt-handler
// label, CPU model, virt-launcher overhead, evacuation): a replacement pod is scheduled
// by Kubernetes' scheduler, not built by KubeVirt.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/kinds/pod_hyperconvergence/pod_objects.hpp"
#include "model/placement/node_admission.hpp"

namespace schedopt::pod_hyperconvergence {

/// Per node: the requests of the pods bound to it (spec.nodeName set) and not finished
/// (phase neither Succeeded nor Failed), terminating ones included, as the scheduler's
/// cache counts them until they are gone. virt-launcher pods count like any other: they
/// are what a VMI takes on its node.
std::map<std::string, node_usage> usage_by_node(const shared_list<pod>& pods);

/// The same when the pods were listed without KubeVirt's virt-launcher pods (the
/// controller's pod informer leaves them out: at 100,000 VMIs they would be most of its
/// store): the VMIs stand in for them, each counted with its virt-launcher pod's
/// requests (model/node_admission.hpp usage_by_node, which also holds room for a VMI
/// migrating toward a node). A virt-launcher pod in `pods` anyway is not counted twice.
std::map<std::string, node_usage>
usage_by_node(const shared_list<pod>& pods, const shared_list<virtual_machine_instance>& vmis,
              const std::vector<virtual_machine_instance_migration>& vmims);

/// One rule: why `p` may not run on `n` with `used` there already, or nullopt.
using pod_admission_check = std::optional<std::string> (*)(const pod& p, const node& n,
                                                          const node_usage& used);

struct pod_admission_rule {
  const char* name; // "ready", "schedulable", "nodeSelector", "requiredNodeAffinity",
                    // "taints", "memory", "cpu"
  pod_admission_check check;
};

/// The rules refusal() applies, in its order (explain reports each).
const std::vector<pod_admission_rule>& pod_admission_rules();

/// The first refusal, worded as the VM kind words it (`not Ready`, `cordoned`,
/// `nodeSelector disk=ssd not matched`, `required node affinity not matched`,
/// `taint dedicated=db:NoSchedule not tolerated`, `2Gi memory free, needs 8Gi`,
/// `500m CPU free, needs 2`); nullopt when the pod may run there. An amount the node
/// does not report, or a request the pod does not make, is not checked.
std::optional<std::string> refusal(const pod& p, const node& n, const node_usage& used);

/// Where a candidate's replacement should land: the nodes of the best score (other than
/// its own) that admit it, and why each of the others does not.
struct pod_targets {
  std::vector<std::string> nodes;    // admissible best nodes, sorted
  std::vector<std::string> refusals; // "<node>: <why>", sorted by node; the NoTargetNode detail
};

/// Only the best score level counts (not the next one down, as for VMs): a replacement
/// is judged Successful only on a node of the best score (docs/design.md §9), so a pod
/// whose best nodes all refuse it is not evicted. A best node absent from `nodes` is
/// refused `not found`; `usage` absent for a node: nothing runs there.
pod_targets best_targets(const pod& p, const std::vector<std::string>& best_nodes,
                         const std::map<std::string, const node*>& nodes,
                         const std::map<std::string, node_usage>& usage);

/// Adds the pod's requests to each of `targets` (what an eligible candidate may take, so
/// the next candidate is judged against the room left).
void hold_room(std::map<std::string, node_usage>& usage, const pod& p,
               const std::vector<std::string>& targets);

} // namespace schedopt::pod_hyperconvergence
