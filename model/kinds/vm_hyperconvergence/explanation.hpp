// docs/cli.md `schedopt explain`: why one VM is or is not moved, assembled from the inputs
// and the result of the evaluation that decides (evaluation.hpp) and from the rules
// that admit a node (node_admission.hpp), so the explanation cannot disagree with the
// decision. Pure: the caller gathers, this file only reads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/explain_query.hpp"
#include "model/kinds/vm_hyperconvergence/evaluation.hpp"
#include "model/placement/placement_explanation.hpp"

namespace schedopt {

/// spec.volumes entry → PVC → PV → the driver's replica nodes.
struct volume_explanation : claim_explanation {
  std::string volume; // spec.volumes[].name
};

struct cool_off_explanation {
  duration period{};
  std::optional<timestamp> last_migration; // the latest schedopt migration of the VM
  std::optional<timestamp> eligible_after;
  bool cooling_off = false;
};

struct migration_in_flight {
  std::string name;
  std::string phase; // "" when KubeVirt has not set one yet
  bool schedopt = false;
};

/// The placement facts (scores, best and target nodes, each node, the per-run cap) are
/// the base's, shared with every kind.
struct vmi_explanation : placement_explanation {
  std::string namespace_;
  std::string name;
  std::string phase;
  std::string node;
  bool considered = false; // Running with a node (docs/design.md §2.1)
  std::string verdict;     // vmi_evaluation::verdict, "not-considered" when not considered
  std::string disposition; // to_string(disposition)
  std::string reason;      // the skip reason the evaluation gave, or ""
  std::string evaluation_error; // volume lookup error, if any
  std::vector<volume_explanation> volumes;
  int target_score = 0;
  cool_off_explanation cool_off;
  std::vector<migration_in_flight> in_flight; // anyone's non-final VMIMs of the VMI
  std::optional<next_request> next;           // nullopt: none pending
};

/// What the evaluation read and decided, plus what explain adds (the VMIM objects, the
/// PVCs, the request queue). Every reference must outlive the explainer.
struct explanation_sources {
  const evaluation_input& in;
  const evaluation_result& result;
  const std::vector<virtual_machine_instance_migration>& vmims;
  /// nullptr: not gathered; each volume is then its driver PV only (no claim).
  const std::vector<persistent_volume_claim>* pvcs;
  std::optional<next_request> next;
};

class explainer {
public:
  /// Indexes the sources; with `only`, just those VMI keys (explained_skips() uses this
  /// so a run with few skips among 100,000 VMIs indexes few).
  explicit explainer(const explanation_sources& sources,
                     std::optional<std::set<std::string>> only = std::nullopt);

  /// nullopt when `in.vmis` has no VMI `<namespace>/<name>`.
  std::optional<vmi_explanation> explain(const std::string& key) const;

  /// Every misplaced VMI (verdict semi, non or error), sorted (namespace, name).
  std::vector<vmi_explanation> explain_misplaced() const;

  /// `result.skipped` with each reason extended by " | " and brief() of its VMI,
  /// capped at max_reason_bytes: the original reason stays its prefix.
  std::vector<kind_detail> explained_skips() const;

private:
  vmi_explanation summary(const std::string& key, const virtual_machine_instance& vmi) const;
  std::vector<node_explanation> nodes_of(const virtual_machine_instance& vmi,
                                         const vmi_explanation& ex) const;

  bool wanted(const std::string& key) const { return !only_ || only_->count(key); }

  const explanation_sources& src_;
  std::optional<std::set<std::string>> only_;
  std::map<std::string, const virtual_machine_instance*> vmis_;
  std::map<std::string, const vmi_evaluation*> evaluations_;
  std::map<std::string, const vmi_volumes*> volumes_;
  std::map<std::string, const persistent_volume_claim*> pvcs_;
  std::map<std::string, std::vector<const virtual_machine_instance_migration*>> vmims_;
  std::map<std::string, int64_t> positions_; // candidates every filter let through
};

/// explainer{sources, <the skipped VMIs>}.explained_skips(): what the engine records.
std::vector<kind_detail> explained_skips(const explanation_sources& sources);

/// One line for a skip's detail: verdict, node and scores, each volume's replica
/// nodes, in-flight VMIMs and the last migration, e.g. `non on n1 (score 0 of 2);
/// pv-a: n2,n3; pv-b: n2,n3`. Not capped: explained_skips() caps the whole reason.
std::string brief(const vmi_explanation& ex);

} // namespace schedopt
