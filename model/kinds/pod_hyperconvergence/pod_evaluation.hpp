// docs/design.md §9 with §2: classify every running pod that is not KubeVirt's
// (hyperconverged / semi / non), filter the candidates and pick this run's eligible set.
// Pure: the caller fetches (pods, PVCs, PVs, the driver's replica nodes, nodes, owners),
// this decides. Scoring is the VM kind's (model/scoring.hpp score_placement).
//
// Filters, in order; the first that blocks skips the candidate with its reason:
//   OptedOut                  namespace excluded or labelled, the pod or its
//                             StatefulSet/ReplicaSet labelled exclude=true
//   NoController              no controller, or one that is not an apps/v1 StatefulSet
//                             or ReplicaSet, or one being deleted or scaled to zero (its
//                             evicted pod would not come back)
//   SchedulerNotStorageAware  spec.schedulerName not among storageAwareSchedulers
//   CoolingOff                the workload's record (pod_cool_off.hpp)
//   NoTargetNode              no best-score node admits the pod (pod_admission.hpp)
// DisruptionBudget is decided when evicting (eviction.hpp). A pod whose volumes or
// owner cannot be looked up is skipped `EvaluationError: <what the API would say>`.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/duration.hpp"
#include "model/kinds/pod_hyperconvergence/pod_admission.hpp"
#include "model/kinds/pod_hyperconvergence/pod_cool_off.hpp"
#include "model/kinds/pod_hyperconvergence/pod_objects.hpp"
#include "model/kinds/pod_hyperconvergence/pod_reason.hpp"
#include "model/kinds/pod_hyperconvergence/pod_status.hpp"
#include "model/placement/scoring.hpp"
#include "model/placement/placement_tally.hpp"
#include "model/sorted_objects.hpp"
#include "model/timestamp.hpp"

namespace schedopt::pod_hyperconvergence {

/// "<namespace>/<name>".
std::string pod_key(std::string_view namespace_, std::string_view name);

/// KubeVirt's virt-launcher pod: label kubevirt.io=virt-launcher, or owned by a
/// VirtualMachineInstance. The VM kind moves those VMs; this kind never touches them.
bool is_virt_launcher(const pod& p);

/// The label selector of the controller's pod list and watch: every pod but KubeVirt's
/// virt-launcher pods (label kubevirt.io=virt-launcher), which the VMIs stand for.
constexpr const char* pod_informer_label_selector = "kubevirt.io!=virt-launcher";

/// Running, bound to a node, not terminating, and not a virt-launcher pod.
bool is_considered(const pod& p);

/// Which PVs the configured storage driver owns.
using pv_owned_predicate = std::function<bool(const persistent_volume&)>;

/// Step 1 for one considered pod: the driver-owned PVs behind its claims.
struct pod_volumes {
  std::string namespace_;
  std::string name;
  shared_list<persistent_volume> pvs; // sorted by name, each once
  /// Non-empty: the first lookup that failed, worded as the API server words a failed
  /// GET (`persistentvolumeclaims "data-db-0" not found`); pvs is then empty.
  std::string error;
};

/// Step 1 for every considered pod, sorted (namespace, name).
std::vector<pod_volumes> driver_volumes_of(const shared_list<pod>& pods,
                                           const sorted_objects<persistent_volume_claim>& pvcs,
                                           const sorted_objects<persistent_volume>& pvs,
                                           const pv_owned_predicate& owned);

/// The PVs to ask the storage driver about: every pod's, each once, sorted by name.
shared_list<persistent_volume> volumes_to_query(const std::vector<pod_volumes>& volumes);

struct evaluation_input {
  shared_list<pod> pods; // every pod listed (only considered ones are judged)
  std::vector<pod_volumes> volumes; // step 1; a considered pod missing here has no driver volume
  replicas_by_pv replicas;          // the driver's answer by PV name
  std::map<std::string, std::string> replica_errors; // PV -> the driver's error
  std::vector<node> nodes;
  /// Requests already on each node (usage_by_node over every pod); evaluate() adds an
  /// eligible candidate's requests to each of its targets before judging the next.
  std::map<std::string, node_usage> usage;
  shared_list<stateful_set> stateful_sets;
  shared_list<replica_set> replica_sets;
  std::set<std::string> excluded_namespaces;  // the cluster setting excludeNamespaces
  std::set<std::string> opted_out_namespaces; // labelled exclude=true, as the cluster says now
  /// The cluster setting storageAwareSchedulers: schedulers that place a pod on a node
  /// holding its volumes' replicas.
  std::vector<std::string> storage_aware_schedulers{"stork"};
  /// Pods ("<ns>/<name>") this request already accounted for (resume: evicted, or the
  /// replacement it tracked): not judged again, not counted.
  std::set<std::string> handled;
  std::string request_uid; // its own cool-off records do not hold it back
  std::string cool_off_annotation = default_pod_cool_off_annotation;
  duration cool_off_period = std::chrono::hours(1);
  timestamp now;
  int64_t max_per_run = 100; // maxNonHyperconvergedPerRun
  /// Whether the result lists pods that are neither candidates nor skipped too (plan,
  /// explain); a controller run does not need them.
  bool every_pod = true;
};

enum class pod_disposition {
  not_candidate, // hyperconverged, or no driver volume
  eligible,      // evicted this run
  skipped,       // a filter or an evaluation error blocked it
  outstanding,   // eligible but over max_per_run: left for a later request
};

const char* to_string(pod_disposition d);

struct pod_evaluation {
  std::string namespace_;
  std::string name;
  std::string node;      // where it runs now
  std::string scheduler; // spec.schedulerName, defaulted
  std::optional<workload_ref> owner;
  /// "hyperconverged", "semi", "non", "none" (no driver volume), "error".
  std::string verdict;
  std::vector<std::string> best_nodes; // every node of the best score, sorted
  std::vector<std::string> target_nodes; // candidates: admissible best nodes, sorted
  std::vector<std::string> refusals;   // candidates: "<node>: <why>" per refused best node
  int best_score = 0;
  int current_score = 0;
  pod_disposition disp = pod_disposition::not_candidate;
  std::string reason; // "<Kind>: <detail>" when skipped
};

/// What the eviction engine needs of an eligible candidate.
struct eviction_candidate {
  std::shared_ptr<const pod> target; // the pod to evict, as evaluated
  workload_ref owner;
  std::vector<std::string> best_nodes;   // where its replacement counts as Successful
  std::vector<std::string> target_nodes; // the admissible ones among them
};

struct evaluation_counts : placement_counts {
  int64_t virt_launcher = 0; // running virt-launcher pods, left to the VM kind
};

struct evaluation_result {
  /// Every considered pod, sorted (namespace, name); without every_pod only the
  /// candidates and the skipped ones.
  std::vector<pod_evaluation> pods;
  std::vector<eviction_candidate> eligible; // capped at max_per_run, sorted
  std::vector<pod_detail> skipped;          // sorted
  std::vector<std::string> outstanding;     // "<ns>/<name>", sorted
  evaluation_counts counts;
  /// Things the caller should log: a cool-off record that does not parse (ignored).
  std::vector<std::string> warnings;
};

evaluation_result evaluate(const evaluation_input& in);

} // namespace schedopt::pod_hyperconvergence
