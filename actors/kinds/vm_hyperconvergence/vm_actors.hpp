// The vmHyperconvergence kind's typed actor interfaces: the kind itself (extending the
// generic optimization_kind_actor) and its migration engine. Each message line says who sends it and what comes back.
#pragma once

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "actors/actors.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_type_ids.hpp"

namespace schedopt {

/// The vmHyperconvergence kind: the generic kind plus its migration engine's messages.
using vm_hyperconvergence_actor = optimization_kind_actor::extend<
  // candidate -> kind: a candidate finished.
  caf::reacts_to<candidate_done>,
  // internal: kind -> itself: judge the next batch of VMIs.
  caf::reacts_to<atom::tick>,
  // internal: kind -> itself: maxRunDuration passed: create nothing more.
  caf::reacts_to<atom::timeout>>;

/// Enforces the parallelism hint (in-flight buffer, capped as KubeVirt's configuration
/// says), KubeVirt's per-source-node cap and cool-off windows of one run, yields to
/// KubeVirt's own waiting migrations, chooses pinned targets (fewest inbound).
using supervisor_actor = caf::typed_actor<
  // candidate -> supervisor: wait for a slot; replies the target node ("" unpinned) and
  // KubeVirt's limits at admission (for the per-VM timeout).
  caf::replies_to<admission_request>::with<admission_grant>,
  // kubevirt_policy -> supervisor: KubeVirt's configuration or its own waiting
  // migrations changed (and once on subscribe); admissions follow it from now on.
  // (The supervisor subscribes as a kubevirt_policy_listener.)
  caf::reacts_to<kubevirt_policy>,
  // candidate -> supervisor: its migration is final; frees the slot.
  caf::reacts_to<migration_finished>,
  // candidate -> supervisor: KubeVirt pruned the pin from a created VMIM (before 1.6);
  // the rest of the run goes unpinned.
  caf::reacts_to<atom::unpinned>,
  // kind -> supervisor: admit nothing more; waiting candidates get ec::cancelled.
  caf::reacts_to<atom::stop>>;

/// One VM candidate: admission, VMIM create (or adoption on resume), outcome.
using candidate_actor = caf::typed_actor<
  // vmim_watch -> candidate: the migration's outcome.
  caf::reacts_to<migration_result>>;

/// Follows one VMIM through the shared VMIM informer (never its own HTTP watch) and
/// reports its outcome; deletes it after migrationTimeout.
using vmim_watch_actor = informer_subscriber_actor<virtual_machine_instance_migration>::extend<
  // internal: vmim_watch -> itself: migrationTimeout elapsed.
  caf::reacts_to<atom::timeout>,
  // internal: vmim_watch -> itself: failureCauseWait elapsed for a Failed VMIM without
  // KubeVirt's cause; its events are read next.
  caf::reacts_to<atom::done>,
  // internal: vmim_watch -> itself: a timed-out VMIM's abort has not ended in time.
  caf::reacts_to<atom::close>>;

} // namespace schedopt
