// model objects -> JSON bodies (create bodies and JSON merge patches), built with
// nlohmann::json so escaping is never hand-rolled.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "model/objects.hpp"

namespace schedopt {

template <class Name>
nlohmann::json to_json(const basic_identity<Name>& meta);
nlohmann::json to_json(const lean_meta& meta);
nlohmann::json to_json(const object_meta& meta);
nlohmann::json to_json(const kind_detail& detail);
nlohmann::json to_json(const scheduling_optimization_status& status);
nlohmann::json to_json(const lease& l);
nlohmann::json to_json(const event& e);

/// The VMIM schedopt creates (docs/design.md §3.1): apiVersion kubevirt.io/v1, kind, metadata
/// (generateName, labels, annotations), spec.vmiName, spec.addedNodeSelector if set.
nlohmann::json to_json(const virtual_machine_instance_migration& m);

/// Full objects as the API server would serve them (apiVersion, kind, metadata, spec,
/// status); the simulator and tests build fixtures with these.
nlohmann::json to_json(const condition& c);
nlohmann::json to_json(const migration_state& s);
nlohmann::json to_json(const virtual_machine_instance& vmi);
nlohmann::json to_json(const persistent_volume_claim& pvc);
nlohmann::json to_json(const persistent_volume& pv);
nlohmann::json to_json(const node& n);
nlohmann::json to_json(const api_status& s);
nlohmann::json to_json(const scheduling_optimization_spec& spec);
nlohmann::json to_json(const scheduling_optimization& so);

/// The VMIM including its status (what the simulator serves); to_json(vmim) above is
/// the create body and has no status.
nlohmann::json to_json_with_status(const virtual_machine_instance_migration& m);

/// The JSON patch the status writer sends to /status: `test /metadata/uid` (when `uid` is
/// set: a PATCH carries no uid precondition, so a re-created namesake must fail the test)
/// then `add /status`. In the status, stage, status, observedGeneration and (when set)
/// every kind's block with its details array are always present; empty reason and
/// timestamps are omitted, as Go's omitempty does.
std::string status_json_patch(const scheduling_optimization_status& status, std::string_view uid);

} // namespace schedopt
