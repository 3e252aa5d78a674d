// Server-side printing (meta.k8s.io/v1 Table) for `kubectl get`: Name, the CRD's
// additionalPrinterColumns (else Age), date columns rendered as ages like apiserver.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace schedopt::sim {

struct served_resource;

/// True when the Accept header asks for `as=Table` (kubectl get does).
bool wants_table(const std::string& accept);

/// columnDefinitions for a resource.
nlohmann::json table_columns(const served_resource& resource);

/// One row: cells in column order plus a PartialObjectMetadata object.
nlohmann::json table_row(const served_resource& resource, const nlohmann::json& object);

/// An empty Table with columns; callers append rows and set metadata.
nlohmann::json empty_table(const served_resource& resource);

/// Evaluates the simple JSONPath subset printer columns use: `.a.b`, `.a[0].b`,
/// `.a[?(@.type=="Ready")].status`. Null when absent.
nlohmann::json eval_json_path(const nlohmann::json& object, const std::string& path);

/// "5s", "3m12s", "2d4h", as kubectl and apiserver print ages.
std::string human_age(long long seconds);

} // namespace schedopt::sim
