// The vmHyperconvergence kind's own messages: its migration engine's (kind, supervisor,
// candidates, VMIM watches). Plain structs with inspect().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>

#include "actors/controller_messages.hpp"
#include "actors/model_inspect.hpp"
#include "model/objects.hpp"

namespace schedopt {

/// candidate -> supervisor: ask for an in-flight slot; the reply names the target node
/// ("" when pinning is off) once admitted, or an error when cooling off or stopped.
struct admission_request {
  std::string vmi_namespace;
  std::string vmi_name;
  std::vector<std::string> target_nodes;
  /// The node the VMI runs on: at most parallelOutboundMigrationsPerNode leave it at once.
  std::string source_node;
  /// Resume: the candidate adopts this running VMIM (pinned to adopted_target, maybe
  /// ""); the supervisor counts it in flight at once and replies adopted_target.
  std::string adopted_vmim;
  std::string adopted_target;
};

/// supervisor -> candidate: admitted; the target node ("" unpinned) and KubeVirt's
/// configuration at admission.
struct admission_grant {
  std::string target;
  kubevirt_policy kubevirt;
  /// Not admitted after all: every target node closed since evaluation. Says which.
  std::string refused;
};

/// candidate -> supervisor: this candidate's migration is final; frees its slot.
struct migration_finished {
  std::string vmi_namespace;
  std::string vmi_name;
  std::string target_node;
};

/// vmim_watch -> candidate: the VMIM reached an outcome.
struct migration_result {
  std::string vmim_name;
  detail_status status = detail_status::failed; // successful, failed or skipped (given up)
  std::string reason;
  /// Where the VM went (the VMIM's migrationState.targetNode) when Successful.
  std::string landed_on;
};

/// candidate -> vmHyperconvergence kind: the candidate is done (its result already went to the
/// status writer).
struct candidate_done {
  std::string vmi_namespace;
  std::string vmi_name;
  std::optional<detail_status> status; // none: stopped before admission (outstanding)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, admission_request& x) {
  return f(caf::meta::type_name("admission_request"), x.vmi_namespace, x.vmi_name,
           x.target_nodes, x.source_node, x.adopted_vmim, x.adopted_target);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, admission_grant& x) {
  return f(caf::meta::type_name("admission_grant"), x.target, x.kubevirt, x.refused);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, migration_finished& x) {
  return f(caf::meta::type_name("migration_finished"), x.vmi_namespace, x.vmi_name,
           x.target_node);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, migration_result& x) {
  return f(caf::meta::type_name("migration_result"), x.vmim_name, x.status, x.reason,
           x.landed_on);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, candidate_done& x) {
  auto status = opt(x.status);
  return f(caf::meta::type_name("candidate_done"), x.vmi_namespace, x.vmi_name, status);
}

} // namespace schedopt
