// REST paths and query strings of the Kubernetes API.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "k8s/api_types.hpp"

namespace schedopt::k8s {

/// /api/v1[/namespaces/<ns>]/<plural> or /apis/<g>/<v>[/namespaces/<ns>]/<plural>.
std::string collection_path(const resource& res, const std::string& ns);

/// collection_path + /<name>[/<subresource>].
std::string object_path(const resource& res, const std::string& ns, const std::string& name,
                        const std::string& subresource = {});

/// Percent-encodes a query value (RFC 3986 unreserved characters kept).
std::string url_encode(const std::string& value);

/// "?k=v&k2=v2" from the non-empty pairs ("" when none).
std::string query_string(const std::vector<std::pair<std::string, std::string>>& params);

/// Short label for metrics: the plural ("virtualmachineinstances").
inline const std::string& metric_resource(const resource& res) { return res.plural; }

} // namespace schedopt::k8s
