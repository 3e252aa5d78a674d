// The podHyperconvergence kind's informer interfaces: informer_actor (actors/actors.hpp)
// of each of its watched types, and the handles its runs read. The kind starts them
// itself (pod_informers.hpp), so nothing outside its folders names these types.
#pragma once

#include "actors/actors.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_type_ids.hpp"

namespace schedopt {

using pod_informer_actor = informer_actor<pod_hyperconvergence::pod>;
using stateful_set_informer_actor = informer_actor<pod_hyperconvergence::stateful_set>;
using replica_set_informer_actor = informer_actor<pod_hyperconvergence::replica_set>;
using pod_disruption_budget_informer_actor =
  informer_actor<pod_hyperconvergence::pod_disruption_budget>;

/// The kind's informers, one per watched type, shared by all of its runs: the kind's
/// entry in controller_context::kind_handles.
struct pod_informers {
  pod_informer_actor pods;
  stateful_set_informer_actor stateful_sets;
  replica_set_informer_actor replica_sets;
  pod_disruption_budget_informer_actor pod_disruption_budgets;
};

} // namespace schedopt
