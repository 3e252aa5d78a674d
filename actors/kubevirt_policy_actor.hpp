// docs/design.md §3.2 and §3.3: one actor per process follows the KubeVirt CR and
// KubeVirt's waiting VMIMs for every run.
#pragma once

#include <caf/actor_system.hpp>

#include "actors/actors.hpp"

namespace schedopt {

/// Subscribes to both informers at once (the VMIM informer replays every VMIM once,
/// then sends only changes, each counted in O(log n)).
kubevirt_policy_actor spawn_kubevirt_policy(caf::actor_system& sys, kubevirt_informer_actor crs,
                                            vmim_informer_actor vmims, node_informer_actor nodes);

} // namespace schedopt
