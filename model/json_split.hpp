// Cuts one top-level array out of a JSON document, so a list page or a bulk SDK answer
// is parsed one element at a time. A simdjson DOM parser allocates ~14.7 bytes per byte
// of the largest document it parsed and keeps them (a thread's parser, for the process's
// life): sized by one element, that is a few KB instead of a whole bulk answer's worth.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace schedopt {

namespace json_scan {
/// simdjson's default maximum depth is 1024; deeper documents fail as a whole, so a
/// scanner leaves one that comes close to the whole-document parse.
constexpr std::size_t max_depth = 1000;

/// JSON's whitespace (RFC 8259 §2).
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
} // namespace json_scan

struct split_json {
  /// The document with the array emptied (`..."items":[]...`): the rest still parses
  /// and type-checks as before.
  std::string envelope;
  /// Each element's text, in order, as views into the input.
  std::vector<std::string_view> elements;
};

/// Splits `json`, an object whose top-level member `key` is an array. nullopt when the
/// document is not shaped so in plain bytes (no such member, not an array, a key
/// written with escapes, nesting near simdjson's depth limit) or its strings and
/// brackets do not balance: the caller then parses it whole, which reports whatever is
/// wrong exactly as before. Each element still has to be parsed to be known valid.
std::optional<split_json> split_top_level_array(std::string_view json, std::string_view key);

} // namespace schedopt
