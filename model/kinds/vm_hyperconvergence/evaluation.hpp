// docs/design.md §2: classify every running VMI (hyperconverged / semi / non), filter the
// candidates and pick this run's eligible set. Pure: the caller fetches, we decide.
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

#include <boost/container/small_vector.hpp>

#include "model/duration.hpp"
#include "model/placement/node_admission.hpp"
#include "model/placement/scoring.hpp"
#include "model/objects.hpp"
#include "model/placement/placement_tally.hpp"
#include "model/placement/replica_table.hpp"
#include "model/sorted_objects.hpp"
#include "model/timestamp.hpp"

namespace schedopt {

/// docs/design.md §2.1: status.phase == Running and status.nodeName set.
bool is_considered(const virtual_machine_instance& vmi);

/// Step 1 result for one considered VMI. There is one per running VMI, held
/// from the driver query through the evaluation: they point into the objects instead of
/// copying their names.
struct vmi_volumes {
  std::string_view namespace_; // views into the VMI (the caller's shared_list holds it)
  std::string_view name;
  /// Driver-owned PVs it needs, sorted by name, unique. Two inline (a VM has a root disk
  /// and a data disk or two): a heap block fewer per VMI.
  boost::container::small_vector<std::shared_ptr<const persistent_volume>, 2> pvs;
  std::string error;                  // non-empty: Kubernetes-style lookup error, e.g.
                                      // `persistentvolumeclaims "foo" not found`
};

/// Which PVs the configured storage driver owns.
using pv_owned_predicate = std::function<bool(const persistent_volume&)>;

/// Step 1 for one VMI at a time: the driver PVs behind its PVC / DataVolume volumes.
/// Asked in key order, each claim is searched from where the last one was found. It
/// holds the claims and volumes it searches; the result views into the VMI.
class volume_mapper {
public:
  volume_mapper(sorted_objects<persistent_volume_claim> pvcs,
                sorted_objects<persistent_volume> pvs, pv_owned_predicate owned);
  volume_mapper(const volume_mapper&) = delete; // the index refers to pvs_
  volume_mapper& operator=(const volume_mapper&) = delete;

  vmi_volumes map(const virtual_machine_instance& vmi);

private:
  sorted_objects<persistent_volume_claim> pvcs_;
  sorted_objects<persistent_volume> pvs_;
  name_hash_index<persistent_volume> pvs_by_name_;
  pv_owned_predicate owned_;
  std::size_t pvc_hint_ = 0;
};

/// Step 1 for every considered VMI, sorted (ns, name) as evaluate() reads them; the
/// result views into `vmis`, which must outlive it.
std::vector<vmi_volumes> driver_volumes_of(const shared_list<virtual_machine_instance>& vmis,
                                           const sorted_objects<persistent_volume_claim>& pvcs,
                                           const sorted_objects<persistent_volume>& pvs,
                                           const pv_owned_predicate& owned);

/// What the storage driver answered (docs/design.md §2.3), by PV name.
struct replica_map {
  replicas_by_pv nodes; // PV -> Kubernetes node names (normalized)
  /// Or, from a driver that answered by position: the nodes of the query's i-th PV
  /// (normalized), found through position_of(). The evaluation's PVs are the query's
  /// objects, so nothing is looked up by name.
  replica_table by_position;
  std::map<std::string, std::string> errors;          // PV -> driver error text

  /// Keeps `asked` (a query's PVs, in its order, shared with it) to find positions in.
  void index_positions(shared_list<persistent_volume> asked);
  bool has_positions() const { return !asked_.empty(); }
  void clear_positions();
  /// `pv`'s position among the PVs asked, if it is one of them.
  std::optional<std::size_t> position_of(const persistent_volume& pv) const;

private:
  shared_list<persistent_volume> asked_;
  /// Positions in asked_, sorted by their PV's address: 4 bytes a PV, where (address,
  /// position) pairs were 16.
  std::vector<uint32_t> by_address_;
};

/// Non-final VMIMs (anyone's), VMI "<ns>/<name>" -> VMIM name.
std::map<std::string, std::string>
in_flight_migrations_by_vmi(const std::vector<virtual_machine_instance_migration>& vmims);

struct evaluation_input {
  shared_list<virtual_machine_instance> vmis; // shared with the informer: never copied
  /// Step 1 output, sorted (ns, name): an explanation keeps it to show each VMI's volumes.
  std::vector<vmi_volumes> volumes;
  /// Set instead of `volumes`: step 1 is done VMI by VMI as each is judged (docs/design.md
  /// "Data path"), not for all of them before the first.
  std::shared_ptr<volume_mapper> mapper;
  replica_map replicas;
  std::vector<node> nodes;
  /// Requests already on each node (usage_by_node over every listed VMI and VMIM, not
  /// only the ones evaluated); a node absent from it has nothing running. evaluate()
  /// adds each eligible candidate's requests to every one of its target nodes before
  /// judging the next candidate (in (namespace, name) order).
  std::map<std::string, node_usage> usage;
  std::map<std::string, std::string> in_flight;    // see in_flight_migrations_by_vmi
  std::map<std::string, timestamp> last_migration; // VMI key -> latest schedopt migration
                                                   // (cool_off.hpp latest_migration_time)
  /// OptedOut: namespaces excluded by the cluster (excludeNamespaces) or labelled, and
  /// the VirtualMachines ("<ns>/<name>") labelled schedopt.libopenstorage.org/exclude.
  std::set<std::string> excluded_namespaces;
  std::set<std::string> opted_out_namespaces; // labelled, as the cluster says now
  std::set<std::string> opted_out_vms;
  timestamp now;
  duration cool_off_period = std::chrono::hours(1);
  int64_t max_non_hyperconverged_per_run = 100;
  /// Whether the result lists the VMIs that are no candidate and not skipped too. A
  /// plan, an explanation or a dry run shows them; a controller run reports nothing of
  /// them, and in a large fleet (nearly all of it well placed) they would be a large
  /// allocation held through the run's start.
  bool every_vmi = true;
};

enum class disposition {
  not_candidate, // hyperconverged, or no driver volume
  eligible,      // goes to the migration engine this run
  skipped,       // a filter or an evaluation error blocked it
  outstanding,   // eligible but over maxNonHyperconvergedPerRun
};

const char* to_string(disposition d);

struct vmi_evaluation {
  std::string namespace_;
  std::string name;
  std::string node;    // where it runs now (source node)
  std::string verdict; // "hyperconverged", "semi", "non", "none" (no driver volume), "error"
  std::vector<std::string> best_nodes;
  /// Candidates only (semi, non), docs/design.md §2.5: nodes of the best score level the
  /// VMI may run on, else of the next level above its current node's (target_choice.hpp
  /// admissible_targets). Empty for a VMI that stays, so plan and explain show no target.
  std::vector<std::string> target_nodes;
  disposition disp = disposition::not_candidate;
  std::string reason; // "<Enum>: <detail>" when skipped, else empty
  int target_score = 0;              // the level target_nodes score; 0 when none
  std::vector<std::string> refusals; // "<node>: <why>" per refused best node
  int best_score = 0;    // replicas of its driver volumes on each best node
  int current_score = 0; // the same count on its current node
  /// Candidates only: every node holding a replica of one of its driver volumes, sorted.
  std::vector<std::string> replica_holders;
};

using evaluation_counts = placement_counts;

struct evaluation_result {
  /// Every considered VMI, sorted (ns, name); without evaluation_input::every_vmi only
  /// the candidates and the skipped ones.
  std::vector<vmi_evaluation> vmis;
  std::vector<vmi_evaluation> eligible; // capped at maxNonHyperconvergedPerRun, sorted
  std::vector<kind_detail> skipped;       // status details for the skips, sorted
  std::vector<std::string> outstanding; // "<ns>/<name>", sorted
  evaluation_counts counts;
};

/// Adds the requests of an eligible `vmi` to each of its `targets` in `usage`: what
/// evaluate() does before judging the next candidate, and what `schedopt explain`
/// replays to show the room a candidate was judged against.
void hold_room(std::map<std::string, node_usage>& usage, const virtual_machine_instance& vmi,
               const std::vector<std::string>& targets);

/// Step 2: verdicts, filters in the order of docs/design.md §2.6 (NotLiveMigratable,
/// MigrationInProgress, CoolingOff, NoTargetNode), the cap, and the counts.
evaluation_result evaluate(const evaluation_input& in);

/// Step 2 a batch of VMIs at a time, in the order evaluate() judges them and to the same
/// result: a controller hands the first eligible candidates to the migration engine while
/// the rest are still judged (in a large fleet the whole loop takes a noticeable time).
/// `in` must outlive it.
class evaluator {
public:
  explicit evaluator(const evaluation_input& in);
  ~evaluator();
  evaluator(const evaluator&) = delete;
  evaluator& operator=(const evaluator&) = delete;

  /// Judges up to `n` more considered VMIs; returns whether any are left.
  bool advance(std::size_t n);
  bool done() const;
  /// The VMI the next advance() judges first, or null when every one is judged: a run
  /// with only the driver's lead answer judges only the VMIs that answer covers.
  const virtual_machine_instance* upcoming() const;
  /// evaluation_input::replicas was replaced (the driver's whole answer after its
  /// lead): what the evaluator indexed from it is built again.
  void replicas_replaced();
  /// What is judged so far. Entries are only appended, so a caller that hands eligible
  /// candidates on as they come takes result().eligible from where it stopped.
  const evaluation_result& result() const;
  /// The VMI result().eligible[i] was judged from (it lives in evaluation_input::vmis).
  const virtual_machine_instance& eligible_vmi(std::size_t i) const;
  /// Moves the result out; nothing is judged after.
  evaluation_result take_result();

private:
  struct state;
  std::unique_ptr<state> s_;
};

} // namespace schedopt
