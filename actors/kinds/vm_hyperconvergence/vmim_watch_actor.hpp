// One actor per schedopt VMIM: follows it through the shared VMIM informer and tells
// its candidate the outcome (docs/design.md §3.6).
#pragma once

#include <optional>

#include "actors/controller_context.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_actors.hpp"
#include "model/duration.hpp"
#include "model/timestamp.hpp"

namespace schedopt {

/// What the watch follows: the VMIM, when migrationTimeout runs out (its creation plus
/// the configured timeout), and for an adopted VMIM the state it was found in.
struct vmim_watch_target {
  std::string ns;
  std::string name;
  /// The uid the timed-out delete names as its precondition (empty: the first one seen),
  /// so a VMIM of the same name created since is never deleted in its place.
  std::string uid;
  /// migrationTimeout, counted from the hand-off (the VMIM leaving Pending).
  duration timeout;
  std::optional<virtual_machine_instance_migration> known;
};

/// Linked to `parent`. The phase (the known state, then the informer's replay) is always
/// checked before the timeout is armed, so an adopted VMIM that already finished is
/// reported as it finished, never deleted as timed out.
vmim_watch_actor spawn_vmim_watch(caf::local_actor* parent, const controller_context& ctx,
                                  candidate_actor candidate, vmim_watch_target target);

} // namespace schedopt
