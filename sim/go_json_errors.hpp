// The words Go's encoding/json uses for a body that is not JSON, for the 400s that
// quote them (kube-apiserver decodes every body with it).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace schedopt::sim {

/// Go's json.Unmarshal error for `text`, or nullopt when it is valid JSON: "invalid
/// character 'n' looking for beginning of object key string", "unexpected end of JSON
/// input", ... Follows Go's src/encoding/json/scanner.go (the scanner's step functions
/// and quoteChar).
std::optional<std::string> go_json_syntax_error(std::string_view text);

/// apiserver handlers/rest.go summarizeData: the body, cut to `max` bytes with "..."
/// appended when longer, as transformDecodeError quotes it.
std::string summarize_data(std::string_view text, std::size_t max);

} // namespace schedopt::sim
