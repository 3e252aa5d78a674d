// The objects podHyperconvergence reads — core/v1 Pod, apps/v1 StatefulSet and
// ReplicaSet, policy/v1 PodDisruptionBudget — reduced to the fields its decisions use.
// Field names are those of k8s.io/api core/v1, apps/v1 and policy/v1 types.go; the
// decoders are in pod_decode.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/objects.hpp"

namespace schedopt::pod_hyperconvergence {

/// metav1.LabelSelectorRequirement.
struct label_requirement {
  std::string key;
  std::string op; // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;
};

/// metav1.LabelSelector; `present` is false for a nil selector.
struct label_selector {
  bool present = false;
  string_map match_labels;
  std::vector<label_requirement> match_expressions;
};

/// Whether `labels` satisfy the selector, as metav1.LabelSelectorAsSelector builds it
/// (apimachinery pkg/apis/meta/v1/helpers.go): nil selects nothing, empty selects
/// everything; an unknown operator, In/NotIn without values or Exists/DoesNotExist with
/// values make the selector invalid, and an invalid selector selects nothing.
bool selects(const label_selector& s, const string_map& labels);

/// No matchLabels and no matchExpressions (nil or `{}`).
bool is_empty(const label_selector& s);

struct pod {
  object_meta metadata;      // labels, annotations, ownerReferences, uid, timestamps
  std::string node_name;     // spec.nodeName
  std::string scheduler_name; // spec.schedulerName; empty: the API server's default
  /// spec.volumes[].persistentVolumeClaim.claimName, in spec order.
  std::vector<std::string> claim_names;
  scheduling_constraints constraints; // nodeSelector, required node affinity, tolerations
  /// What the scheduler counts for the pod (k8s.io/component-helpers resource
  /// PodRequests): containers summed, init containers as a floor (sidecars added),
  /// pod-level requests in their place when set, plus spec.overhead.
  resource_list requests;
  std::string phase; // status.phase
  std::vector<condition> conditions; // status.conditions (Ready, PodScheduled, ...)
};

/// The scheduler the API server fills in when spec.schedulerName is empty
/// (pkg/apis/core/v1/defaults.go SetDefaults_PodSpec).
constexpr const char* default_scheduler_name = "default-scheduler";

/// spec.schedulerName, or default-scheduler when empty.
std::string_view scheduler_of(const pod& p);

/// The status.conditions entry of `type`, or nullptr.
const condition* find_condition(const pod& p, std::string_view type);

/// Condition Ready is True (pkg/api/v1/pod IsPodReady).
bool is_ready(const pod& p);

/// The ownerReference with controller=true, or nullptr.
const owner_reference* controller_of(const object_meta& meta);

/// The controllers whose evicted pods come back as schedopt can predict (docs/design.md §9).
enum class workload_kind { stateful_set, replica_set };

/// "StatefulSet" or "ReplicaSet".
std::string_view to_string(workload_kind k);

/// The workload a pod belongs to: its controller, when that is an apps/v1 StatefulSet
/// or ReplicaSet.
struct workload_ref {
  workload_kind kind = workload_kind::stateful_set;
  std::string namespace_;
  std::string name;
  std::string uid; // the ownerReference's uid
};

/// The pod's controller as a workload; nullopt for a bare pod or another controller
/// (DaemonSet, Job, a VirtualMachineInstance, a custom resource).
std::optional<workload_ref> workload_of(const pod& p);

/// "StatefulSet ns/db".
std::string describe(const workload_ref& w);

struct stateful_set {
  object_meta metadata;
  int64_t replicas = 1;  // spec.replicas (the API server defaults it to 1)
  label_selector selector; // spec.selector
  int64_t ready_replicas = 0; // status.readyReplicas
};

struct replica_set {
  object_meta metadata; // ownerReferences name its Deployment
  int64_t replicas = 1;  // spec.replicas (defaulted to 1)
  label_selector selector;
  int64_t ready_replicas = 0;
};

struct pod_disruption_budget {
  object_meta metadata;
  label_selector selector; // spec.selector
  /// spec.minAvailable / spec.maxUnavailable (int or percentage) as text; empty: unset.
  std::string min_available;
  std::string max_unavailable;
  std::string unhealthy_pod_eviction_policy; // spec.unhealthyPodEvictionPolicy
  int64_t observed_generation = 0;
  int64_t disruptions_allowed = 0;
  int64_t current_healthy = 0;
  int64_t desired_healthy = 0;
  int64_t expected_pods = 0;
};

/// The budgets the eviction subresource weighs for `p`: same namespace, a non-empty
/// selector that selects the pod's labels (pkg/registry/core/pod/storage/eviction.go
/// getPodDisruptionBudgets; a nil or empty selector matches nothing there).
std::vector<const pod_disruption_budget*>
covering_budgets(const pod& p, const std::vector<pod_disruption_budget>& budgets);

} // namespace schedopt::pod_hyperconvergence
