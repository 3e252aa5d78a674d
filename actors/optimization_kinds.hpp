// The registry of optimization kinds. A kind is one named field of the request's spec,
// one block of its status, one actor implementing optimization_kind_actor and whatever
// it starts for itself (its own informers); adding a kind is its own files
// (actors/kinds/<kind>/, model/kinds/<kind>/: its informers and settings too), its CRD
// fields and one line in kinds/optimization_kinds.cpp (docs/design.md "How to add a
// kind").
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "actors/controller_context.hpp"
#include "actors/kind_services.hpp"
#include "config/kind_settings.hpp"

namespace schedopt {

struct optimization_kind {
  std::string name; // the spec field and status block it owns
  /// Spawns the kind's actor for one run, linked to `parent` (the request).
  std::function<optimization_kind_actor(caf::local_actor* parent, const controller_context&)>
    spawn;
  /// Registers the kind's own messages (its CAF type-ID block) with an actor system's
  /// configuration; none for a kind without messages of its own.
  void (*add_message_types)(caf::actor_system_config&) = nullptr;
  /// Starts what the kind keeps for all of its runs (its own informers), once per
  /// controller stack, after the API client: the stack files the handles under the
  /// kind's name in controller_context::kind_handles and stops the actors before its
  /// own. None for a kind that needs only the shared informers.
  kind_services (*start_services)(caf::actor_system&, const api_client_actor&,
                                  const settings&) = nullptr;
  /// The kind's own cluster settings (config/kind_settings.hpp), read from flags,
  /// environment and the config file with the core ones; none for a kind without.
  kind_settings_table (*settings_table)() = nullptr;
  /// The fragment `schedopt explain` evaluates with, given the next pending request's:
  /// the kind takes from it what judges an object the way that request would (its
  /// cool-off period); none: the fragment is just enabled.
  kind_spec (*explain_spec)(const kind_spec& next) = nullptr;
};

/// Every kind, in the order a request runs them.
const std::vector<optimization_kind>& optimization_kinds();

/// Every kind's settings table, in registry order: what the commands hand to
/// parse_command_line and the docs list.
std::vector<kind_settings_table> kind_settings_tables();

/// The kind registered as `name`, the first registered for ""; nullptr when there is none.
const optimization_kind* find_optimization_kind(const std::string& name);

} // namespace schedopt
