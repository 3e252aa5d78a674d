// Messages between the controller's own actors (controller, request, optimization kinds,
// status writer, storage drivers). Plain structs with inspect(). A kind's own messages
// live in its folder (actors/kinds/<kind>/).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>

#include "actors/kubevirt_inspect.hpp"
#include "actors/model_inspect.hpp"
#include "model/kubevirt_config.hpp"
#include "model/objects.hpp"
#include "model/outcome.hpp"
#include "model/placement/replica_nodes.hpp"
#include "model/placement/replica_table.hpp"

namespace schedopt {

// -- status writer --------------------------------------------------------------

/// request/kind -> status_writer: the request enters a stage (written at once).
struct stage_change {
  std::string request; // the request's metadata.uid
  request_stage stage = request_stage::none;
  request_status status = request_status::none;
  int64_t observed_generation = 0;
};

/// kind/candidate -> status_writer: one item's result in the kind's status block
/// (counted once per item, kind and request).
struct detail_result {
  std::string request; // the request's metadata.uid
  std::string kind;    // the block: the kind's spec field
  kind_detail detail;
};

/// request -> status_writer: the terminal outcome (Final stage, written at once).
struct run_outcome {
  std::string request; // the request's metadata.uid
  request_status status = request_status::none;
  std::string reason;
};

// -- optimization kinds -------------------------------------------------------------

/// request -> kind actor: run this kind for the request.
struct kind_run {
  /// Identity, generation and the status as recorded (the kind's own block on resume).
  scheduling_optimization request;
  kind_spec spec;      // the kind's fragment, spec.<kind>; the kind reads its fields
  bool resume = false; // the request was already Evaluating/Migrating
};

/// kind actor -> request: what the run did (counters as recorded in the kind's status
/// block, which the kind wrote through the status writer as it went).
struct kind_result {
  int64_t successful = 0;
  int64_t skipped = 0;
  int64_t failed = 0;
  std::vector<std::string> outstanding; // "<ns>/<name>" left for a later request
  std::optional<schedopt::run_failure> run_failure; // the run failed as a whole
  /// Non-empty: the run stopped starting work before it was done (maxRunDuration).
  std::string stopped_by;
  /// What `schedopt plan` or `explain` prints, rendered by the kind; the command prints
  /// it. Empty for runs that act.
  std::string report;
};

// -- storage drivers ----------------------------------------------------------------

/// kind -> storage driver: replica nodes of these PVs (the driver owns them all).
struct replica_query {
  shared_list<persistent_volume> volumes; // shared with the PV informer's store
  std::vector<node> nodes; // to map driver node ids onto Kubernetes node names
  /// The kind takes the answer by position (replica_answer::by_position); a driver may
  /// still answer by name.
  bool by_position = false;
  /// A few volumes asked ahead of a bulk query for all of them, so the first VMIs are
  /// judged before the bulk answer is in (docs/design.md §2.3): a driver with a bulk
  /// lookup asks for these one by one.
  bool lead = false;
};

/// storage driver -> kind: Kubernetes node names holding a replica, per PV name, and
/// per-volume errors (a volume the driver does not know). Already the replica map's
/// shape, so the kind takes it over instead of rebuilding an entry per PV.
struct replica_answer {
  replicas_by_pv replicas;
  /// Or, for a query asked by position: entry i answers the query's i-th PV (one that
  /// has an error has no nodes), so no PV name is copied (two or so per VMI).
  replica_table by_position;
  std::vector<std::pair<std::string, std::string>> errors;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stage_change& x) {
  return f(caf::meta::type_name("stage_change"), x.request, x.stage, x.status,
           x.observed_generation);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, detail_result& x) {
  return f(caf::meta::type_name("detail_result"), x.request, x.kind, x.detail);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_outcome& x) {
  return f(caf::meta::type_name("run_outcome"), x.request, x.status, x.reason);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kind_run& x) {
  return f(caf::meta::type_name("kind_run"), x.request, x.spec, x.resume);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kind_result& x) {
  auto run_failure = opt(x.run_failure);
  return f(caf::meta::type_name("kind_result"), x.successful, x.skipped, x.failed,
           x.outstanding, run_failure, x.stopped_by, x.report);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, replica_answer& x) {
  return f(caf::meta::type_name("replica_answer"), x.replicas, x.by_position, x.errors);
}

/// kubevirt_policy -> its subscribers (a kind's migration engine): what KubeVirt's
/// configuration allows now.
struct kubevirt_policy {
  /// A KubeVirt CR was read; else `limits` are KubeVirt's defaults and its version (so
  /// the derived timeout and version-based pinning) is unknown.
  bool cr_seen = false;
  kubevirt_migration_limits limits;
  /// KubeVirt's own VMIMs (not schedopt's) with no phase yet or Pending.
  int64_t kubevirt_waiting = 0;
  /// Nodes no migration may target now: cordoned (what `kubectl drain` does first) or
  /// carrying KubeVirt's drain taint. Sorted. A run's target lists were computed when it
  /// evaluated; this is what has closed since.
  std::vector<std::string> closed_nodes;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kubevirt_policy& x) {
  return f(caf::meta::type_name("kubevirt_policy"), x.cr_seen, x.limits, x.kubevirt_waiting,
           x.closed_nodes);
}

} // namespace schedopt
