// model objects -> JSON bodies (create bodies and JSON merge patches), built with
// nlohmann::json so escaping is never hand-rolled.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "model/objects.hpp"

namespace schedopt {

nlohmann::json to_json(const object_meta& meta);
nlohmann::json to_json(const vm_detail& detail);
nlohmann::json to_json(const scheduling_optimization_status& status);
nlohmann::json to_json(const lease& l);
nlohmann::json to_json(const event& e);

/// The VMIM schedopt creates (SPEC §3): apiVersion kubevirt.io/v1, kind, metadata
/// (generateName, labels, annotations), spec.vmiName, spec.addedNodeSelector if set.
nlohmann::json to_json(const virtual_machine_instance_migration& m);

/// `{"status": {...}}` — the merge patch the status writer sends to /status.
std::string status_merge_patch(const scheduling_optimization_status& status);

} // namespace schedopt
