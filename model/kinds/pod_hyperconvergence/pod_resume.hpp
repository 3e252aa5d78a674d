// docs/design.md §9 resume: what a restarted run of a request already did, read from its
// status block (the outcomes it recorded) and from the eviction ledgers on the owners
// (eviction_ledger.hpp: the pods it evicted or was about to). So no pod is evicted twice
// by one request, every candidate is counted once, and evictions made before the crash
// keep their slots, of maxParallelEvictions and of maxNonHyperconvergedPerRun.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/kinds/pod_hyperconvergence/eviction_ledger.hpp"
#include "model/kinds/pod_hyperconvergence/pod_status.hpp"

namespace schedopt::pod_hyperconvergence {

struct resume_plan {
  /// Evictions of this request whose outcome is not recorded and whose pod is gone or
  /// terminating: the engine adopts them and judges their replacements.
  std::vector<evicted_pod> in_flight;
  /// Ledger entries whose outcome is not recorded and whose pod still runs, never
  /// evicted (the run stopped between the record and the eviction, or a budget held
  /// it): evaluated again like any pod; an entry left when it is no candidate is
  /// dropped from its owner's ledger.
  std::vector<std::pair<workload_ref, std::string>> not_evicted; // (owner, pod name)
  /// Pods ("<ns>/<name>") not to judge again: every one the status names, the adopted
  /// evictions (a StatefulSet's replacement has its pod's name) and the replacements
  /// already seen of adopted ReplicaSet evictions.
  std::set<std::string> handled;
  /// Slots of maxNonHyperconvergedPerRun used: engine outcomes recorded plus adopted
  /// evictions, each pod once.
  int64_t slots_used = 0;
  /// Skips counted but not named (details are capped): as many of a re-evaluation's
  /// unnamed skips are not new.
  int64_t unnamed_skips = 0;
};

/// `recorded`: the kind's status block as written when the run stopped.
resume_plan plan_resume(const pod_hyperconvergence_status& recorded,
                        const shared_list<pod>& pods,
                        const shared_list<stateful_set>& stateful_sets,
                        const shared_list<replica_set>& replica_sets,
                        const std::string& request_uid,
                        const std::string& cool_off_key = default_pod_cool_off_annotation);

/// The skips of a re-evaluation (of pods not handled) that are new: all of them when
/// every earlier skip is named, else all but `unnamed_skips` of them.
std::vector<pod_detail> new_skips(const std::vector<pod_detail>& skips, int64_t unnamed_skips);

} // namespace schedopt::pod_hyperconvergence
