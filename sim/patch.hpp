// PATCH bodies by Content-Type (merge, JSON patch, strategic merge, server-side apply)
// and the YAML-to-JSON conversion apply bodies need.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/error.hpp"

namespace schedopt::sim {

enum class patch_kind { merge, json_patch, strategic_merge, apply };

/// Maps a Content-Type (parameters ignored) to a patch kind; nullopt when unsupported.
std::optional<patch_kind> patch_kind_from_content_type(std::string_view content_type);

/// Applies `body` to `current`. Errors carry the HTTP status Kubernetes answers:
/// 400 for an unparseable body, 422 for a failed JSON-patch test or bad path.
/// Strategic merge is treated as a merge patch (callers refuse it for custom resources).
expected<nlohmann::json> apply_patch(const nlohmann::json& current, patch_kind kind,
                                     const std::string& body);

/// Parses YAML (a JSON document is YAML too) into JSON with YAML 1.2 core scalar typing:
/// plain true/false/null/numbers become JSON values, quoted scalars stay strings.
expected<nlohmann::json> yaml_to_json(const std::string& text);

/// Every document of a multi-document YAML stream ("---" separated), empty ones dropped.
expected<std::vector<nlohmann::json>> yaml_documents_to_json(const std::string& text);

} // namespace schedopt::sim
