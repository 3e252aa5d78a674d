// OpenAPI v3 documents for the custom resources the API server stores, built from their
// CRDs' schemas as apiextensions-apiserver's builder does, so `kubectl explain` and
// kubectl's client-side validation find them. Built-in types have no document here:
// the simulator holds no schemas for them.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/object_store.hpp"

namespace schedopt::sim {

/// GET /openapi/v3: {"paths": {"apis/<group>/<version>": {"serverRelativeURL": ...}}}
/// for every served version of every stored CRD.
nlohmann::json openapi_v3_index(const object_store& store);

/// GET /openapi/v3/apis/<group>/<version>: the group version's kinds and lists under
/// components.schemas, named by the reversed group ("org.libopenstorage.stork.v1alpha1.
/// SchedulingOptimization") and tagged x-kubernetes-group-version-kind; null when no
/// CRD serves it. Follows kubernetes v1.37.2 staging/src/k8s.io/apiextensions-apiserver/
/// pkg/controller/openapi/builder/builder.go (BuildOpenAPIV3, the schema names and the
/// metadata reference).
nlohmann::json openapi_v3_document(const object_store& store, const std::string& group,
                                   const std::string& version);

} // namespace schedopt::sim
