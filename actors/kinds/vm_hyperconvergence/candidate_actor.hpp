// One actor per VM candidate of a run: waits for the supervisor's admission, records
// the cool-off, creates the VMIM (or adopts one on resume), and reports the outcome.
#pragma once

#include "actors/controller_context.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_actors.hpp"
#include "model/kinds/vm_hyperconvergence/candidate_plan.hpp"

namespace schedopt {

/// Linked to `parent` (the kind): a shutdown stops the candidate and its VMIM watch.
candidate_actor spawn_candidate(caf::local_actor* parent, const controller_context& ctx,
                                vm_hyperconvergence_actor kind, supervisor_actor supervisor,
                                candidate_plan plan);

} // namespace schedopt
