// docs/design.md §9 outcome: after an eviction, find the pod that replaces the evicted
// one and judge where it ends up.
//
//   StatefulSet  the pod of the same name and namespace with another uid (the
//                StatefulSet controller re-creates an ordinal under its name once the
//                old pod is gone).
//   ReplicaSet   a pod the same ReplicaSet controls, created at or after the eviction
//                (to the second: creationTimestamp has no finer grain), that no other
//                eviction of the run has claimed (claimed_uids): with several pods of
//                one ReplicaSet evicted at once, each new pod answers for one of them.
//                The oldest such pod is taken, so claims follow creation order.
//
// Successful when the replacement is Ready on a node of the best score; Failed
// `RescheduledOffReplica: <node>` when it is Ready elsewhere; Failed
// `ReplacementNotReady: <what was seen>` when no replacement is Ready within
// podReadyTimeout of the eviction; waiting otherwise.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "model/duration.hpp"
#include "model/kinds/pod_hyperconvergence/pod_evaluation.hpp"
#include "model/kinds/pod_hyperconvergence/pod_objects.hpp"
#include "model/timestamp.hpp"

namespace schedopt::pod_hyperconvergence {

/// docs/design.md §9 podReadyTimeout default.
constexpr std::chrono::minutes default_pod_ready_timeout{10};

/// An eviction whose replacement is awaited (kept by the engine, and enough to resume).
struct evicted_pod {
  std::string namespace_;
  std::string name;
  std::string uid; // the evicted pod's
  workload_ref owner;
  /// When schedopt first asked to evict it (the first POST, for a `gone` answer too).
  timestamp evicted_at;
  std::vector<std::string> best_nodes; // where a replacement counts as Successful
};

/// The record of an eligible candidate's eviction, first attempted at `first_attempt`.
evicted_pod eviction_record(const eviction_candidate& c, timestamp first_attempt);

enum class replacement_state { waiting, successful, failed };

const char* to_string(replacement_state s);

struct replacement_verdict {
  replacement_state state = replacement_state::waiting;
  std::string reason; // failed: "RescheduledOffReplica: ..." or "ReplacementNotReady: ..."
  /// The replacement found, if any: the engine claims its uid (ReplicaSet) and names it
  /// in logs.
  std::string pod_name;
  std::string pod_uid;
  std::string node;
};

/// The replacement among `pods` (any namespace; others are ignored), or nullptr.
const pod* find_replacement(const evicted_pod& evicted, const shared_list<pod>& pods,
                            const std::set<std::string>& claimed_uids = {});

/// The verdict at `now`. The ReplacementNotReady detail says what was seen: no
/// replacement at all, the old pod still terminating, a replacement not scheduled
/// (its PodScheduled condition's reason and message), or one on a node but not Ready
/// (its phase and Ready condition).
replacement_verdict judge_replacement(const evicted_pod& evicted, const shared_list<pod>& pods,
                                      timestamp now,
                                      duration ready_timeout = default_pod_ready_timeout,
                                      const std::set<std::string>& claimed_uids = {});

} // namespace schedopt::pod_hyperconvergence
