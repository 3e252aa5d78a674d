// events.k8s.io/v1 Events: the same objects as core/v1 Events, stored once and shown in
// either version, as kube-apiserver serves them.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "model/error.hpp"
#include "sim/discovery.hpp"

namespace schedopt::sim {

/// The events.k8s.io/v1 resource, served from the core "events" store.
served_resource events_v1_resource();

/// A stored core/v1 Event as events.k8s.io/v1 shows it. Follows kubernetes v1.37.2
/// pkg/apis/events/v1/conversion.go Convert_core_Event_To_v1_Event (regarding, note,
/// reportingController, the deprecated* fields) and the v1 type's JSON (deprecatedSource
/// always present, the deprecated timestamps null when unset).
nlohmann::json event_to_events_v1(const nlohmann::json& core);

/// An events.k8s.io/v1 Event as core/v1 stores it (Convert_v1_Event_To_core_Event).
nlohmann::json event_from_events_v1(const nlohmann::json& event);

/// pkg/apis/core/validation/events.go ValidateEventCreate for a request of
/// events.k8s.io/v1: the 422 a create fails with, if any.
std::optional<error> validate_events_v1_create(const nlohmann::json& event);

} // namespace schedopt::sim
