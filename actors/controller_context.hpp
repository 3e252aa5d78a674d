// What every controller actor may use: the settings, the API client, the shared
// informers, the status writer, the event recorder, the storage driver and what each
// kind started for itself. Handed to actors at spawn time; all handles are cheap to copy.
#pragma once

#include <any>
#include <map>
#include <memory>
#include <string>

#include "actors/actors.hpp"
#include "actors/drivers/storage_drivers.hpp"
#include "config/settings.hpp"
#include "model/explain_query.hpp"

namespace schedopt {

struct controller_context {
  settings config;
  api_client_actor api;
  vmi_informer_actor vmis;
  vmim_informer_actor vmims;
  pvc_informer_actor pvcs;
  pv_informer_actor pvs;
  node_informer_actor nodes;
  /// What each kind started for all of its runs (its registry entry's start_services,
  /// e.g. the pod kind's informers), by kind name; only the kind reads its own entry
  /// (find_kind_handles). Shared, not copied: the context is copied into every actor.
  std::shared_ptr<const std::map<std::string, std::any>> kind_handles;
  /// KubeVirt's migration configuration and its own waiting migrations (docs/design.md §3.2, §3.3);
  /// unset (tests, one-shot commands): no KubeVirt limit is followed.
  kubevirt_policy_actor kubevirt;
  status_writer_actor status;
  event_recorder_actor events;
  storage_driver_entry driver;
  storage_driver_actor driver_actor;
  /// `schedopt plan`: "table" or "json" — evaluate once, report, migrate nothing (the
  /// kind renders its report into kind_result::report; the command prints it).
  std::string plan_output;
  /// `schedopt explain`: evaluate once, report the explanation, migrate nothing.
  std::optional<explain_query> explain;
};

/// The handles the kind registered as `kind` started (controller_context::kind_handles);
/// nullptr when there are none, e.g. in a context a test built without them.
const std::any* find_kind_handles(const controller_context& ctx, const std::string& kind);

/// Sets the kind's handles in `ctx` (a copy of the map: contexts already handed out keep
/// theirs). For whoever builds a context: the controller stack, tests.
void set_kind_handles(controller_context& ctx, const std::string& kind, std::any handles);

/// The object reference Events about a request point at.
object_reference request_reference(const scheduling_optimization& so);

/// The object reference Events about a VM's migration point at (`kubectl describe vmi`).
object_reference vmi_reference(const virtual_machine_instance& vmi);

} // namespace schedopt
