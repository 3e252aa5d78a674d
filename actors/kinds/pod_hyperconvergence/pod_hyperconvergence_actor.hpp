// The podHyperconvergence optimization kind (docs/design.md §9): evaluate every running
// pod that is not KubeVirt's, then evict the eligible ones through the Eviction API and
// judge where their replacements land. The decisions are model/kinds/pod_hyperconvergence/
// (evaluate, eviction_engine, plan_resume); this actor gathers their inputs and does
// their I/O, one phase per behaviour: gathering (informers, snapshots, namespaces, the
// storage driver), evicting (the engine's owner writes, evictions and replacement
// checks) until every candidate has an outcome.
#pragma once

#include <caf/actor_system_config.hpp>

#include "actors/controller_context.hpp"

namespace schedopt {

/// The podHyperconvergence kind: the generic kind plus its own timer.
using pod_hyperconvergence_actor = optimization_kind_actor::extend<
  // internal: kind -> itself: look again (informers listed yet? a backoff over? a
  // replacement Ready? the eviction window closing?).
  caf::reacts_to<atom::tick>>;

/// Registers the kind's messages (pod_type_ids.hpp: its informers' notifications) with an
/// actor system's configuration.
void add_pod_hyperconvergence_types(caf::actor_system_config& cfg);

pod_hyperconvergence_actor spawn_pod_hyperconvergence(caf::local_actor* parent,
                                                      const controller_context& ctx);

} // namespace schedopt
