// One actor per schedopt VMIM: follows it through the shared VMIM informer and tells
// its candidate the outcome (SPEC §3 "Watching").
#pragma once

#include "actors/controller_context.hpp"
#include "model/duration.hpp"

namespace schedopt {

/// `timeout` is what is left of migrationTimeout for this VMIM (less for adopted ones).
vmim_watch_actor spawn_vmim_watch(caf::local_actor* parent, const controller_context& ctx,
                                  candidate_actor candidate, std::string ns, std::string name,
                                  duration timeout);

} // namespace schedopt
