// What every controller actor may use: the settings, the API client, the shared
// informers, the status writer, the event recorder and the storage driver. Handed to
// actors at spawn time; all handles are cheap to copy.
#pragma once

#include "actors/actors.hpp"
#include "actors/drivers/storage_drivers.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_actors.hpp"
#include "config/settings.hpp"
#include "model/kinds/vm_hyperconvergence/explanation_report.hpp"

namespace schedopt {

struct controller_context {
  settings config;
  api_client_actor api;
  vmi_informer_actor vmis;
  vmim_informer_actor vmims;
  /// VirtualMachines, for their cool-off records; unset (or not synced, e.g. a cluster
  /// without the VM API) makes each run list them instead.
  vm_informer_actor vms;
  pvc_informer_actor pvcs;
  pv_informer_actor pvs;
  node_informer_actor nodes;
  /// KubeVirt's migration configuration and its own waiting migrations (docs/design.md §3.2, §3.3);
  /// unset (tests, one-shot commands): no KubeVirt limit is followed.
  kubevirt_policy_actor kubevirt;
  status_writer_actor status;
  event_recorder_actor events;
  storage_driver_entry driver;
  storage_driver_actor driver_actor;
  /// `schedopt plan`: "table" or "json" — evaluate once, print, migrate nothing.
  std::string plan_output;
  /// `schedopt explain`: evaluate once, print the explanation, migrate nothing.
  std::optional<explain_query> explain;
};

/// The object reference Events about a request point at.
object_reference request_reference(const scheduling_optimization& so);

/// The object reference Events about a VM's migration point at (`kubectl describe vmi`).
object_reference vmi_reference(const virtual_machine_instance& vmi);

} // namespace schedopt
