// Aggregated discovery (apidiscovery.k8s.io/v2): every group's versions and resources in
// one document at /api and at /apis, which client-go and kubectl ask for first and which
// kube-apiserver answers when the Accept header names it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/discovery.hpp"

namespace schedopt::sim {

/// The media type of an aggregated answer.
inline constexpr const char* aggregated_discovery_type =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// Whether one of the Accept header's media ranges is JSON with g=apidiscovery.k8s.io,
/// v=v2 and as=APIGroupDiscoveryList.
bool wants_aggregated_discovery(const std::string& accept);

/// GET /api (`core`) or /apis as an APIGroupDiscoveryList, built from the registry's
/// unaggregated documents. Follows kubernetes v1.37.2 staging/src/k8s.io/apiserver/pkg/
/// endpoints/discovery/aggregated (the v2 types) and apiextensions-apiserver's
/// customresource_discovery_controller.go (a CRD's responseKind names its group and
/// version; a built-in's leaves them empty).
nlohmann::json aggregated_discovery(const resource_registry& registry, bool core);

} // namespace schedopt::sim
