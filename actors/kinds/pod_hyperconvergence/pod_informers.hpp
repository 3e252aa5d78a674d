// The podHyperconvergence kind's informers: started once per controller stack by the
// kind's registry entry (start_services), listing only once a run of the kind asks
// (informer_options::on_demand), and read back by the kind's runs from the context.
#pragma once

#include <caf/actor_system.hpp>

#include "actors/controller_context.hpp"
#include "actors/kind_services.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_actors.hpp"
#include "config/settings.hpp"
#include "model/error.hpp"

namespace schedopt {

/// Spawns the kind's four informers on demand; their handles (a pod_informers) and the
/// actors for the stack owner to stop.
kind_services start_pod_informers(caf::actor_system& sys, const api_client_actor& api,
                                  const settings& cfg);

/// The informers the stack started for the kind; an error saying so when `ctx` holds
/// none (a context built without the kind's registry entry, e.g. by a test).
expected<pod_informers> pod_informers_of(const controller_context& ctx);

} // namespace schedopt
