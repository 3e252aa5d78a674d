// What the vmHyperconvergence kind keeps for all of its runs (its registry entry's
// start_services): the VirtualMachine informer, whose store holds each VM's cool-off
// record. Only this kind reads VirtualMachines; VMIs and VMIMs are the core's, which the
// pod kind reads too.
#pragma once

#include <caf/actor_system.hpp>

#include "actors/controller_context.hpp"
#include "actors/kind_services.hpp"
#include "config/settings.hpp"

namespace schedopt {

struct vm_services {
  vm_informer_actor vms;
};

kind_services start_vm_services(caf::actor_system& sys, const api_client_actor& api,
                                const settings& cfg);

/// The kind's VirtualMachine informer; unset when the context holds none (a one-shot
/// command's, a test's): a run then lists VirtualMachines itself.
vm_informer_actor vm_informer_of(const controller_context& ctx);

} // namespace schedopt
