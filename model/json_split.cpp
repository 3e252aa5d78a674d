// A byte scanner over JSON structure (strings, escapes, bracket depth); see json_split.hpp.
#include "model/json_split.hpp"

namespace schedopt {

namespace {

using json_scan::is_space;
using json_scan::max_depth;

std::size_t skip_space(std::string_view s, std::size_t i) {
  while (i < s.size() && is_space(s[i]))
    ++i;
  return i;
}

// `i` at an opening quote; returns the index after the closing one, or npos.
std::size_t skip_string(std::string_view s, std::size_t i, bool& escaped) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      escaped = true;
      ++i;
    } else if (s[i] == '"') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// Scans one value starting at `i` (no leading space) up to the first `,`, `]` or `}`
// at its own level; returns that index, or npos when the text ends or does not balance.
std::size_t skip_value(std::string_view s, std::size_t i, std::size_t base_depth) {
  std::size_t depth = 0;
  bool escaped = false;
  while (i < s.size()) {
    char c = s[i];
    if (c == '"') {
      i = skip_string(s, i, escaped);
      if (i == std::string_view::npos)
        return i;
      continue;
    }
    if (c == '{' || c == '[') {
      if (++depth + base_depth > max_depth)
        return std::string_view::npos;
    } else if (c == '}' || c == ']') {
      if (depth == 0)
        return i;
      --depth;
    } else if (c == ',' && depth == 0) {
      return i;
    }
    ++i;
  }
  return std::string_view::npos;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

// `i` at `[`; fills `out` and returns the index of the closing `]`, or npos.
std::size_t read_elements(std::string_view s, std::size_t i, std::vector<std::string_view>& out) {
  i = skip_space(s, i + 1);
  if (i < s.size() && s[i] == ']')
    return i;
  while (i < s.size()) {
    auto end = skip_value(s, i, 2);
    if (end == std::string_view::npos)
      return end;
    auto element = trimmed(s.substr(i, end - i));
    if (element.empty())
      return std::string_view::npos; // `[1,,2]` or `[1,]`: the whole parse says why
    out.push_back(element);
    if (s[end] == ']')
      return end;
    if (s[end] != ',')
      return std::string_view::npos;
    i = skip_space(s, end + 1);
  }
  return std::string_view::npos;
}

} // namespace

std::optional<split_json> split_top_level_array(std::string_view json, std::string_view key) {
  auto i = skip_space(json, 0);
  if (i >= json.size() || json[i] != '{')
    return std::nullopt;
  i = skip_space(json, i + 1);
  while (i < json.size() && json[i] == '"') {
    bool escaped = false;
    auto key_end = skip_string(json, i, escaped);
    // An escaped key might equal `key` once unescaped; the parser would see it first.
    if (key_end == std::string_view::npos || escaped)
      return std::nullopt;
    auto name = json.substr(i + 1, key_end - i - 2);
    i = skip_space(json, key_end);
    if (i >= json.size() || json[i] != ':')
      return std::nullopt;
    i = skip_space(json, i + 1);
    if (name == key) {
      if (i >= json.size() || json[i] != '[')
        return std::nullopt;
      split_json out;
      auto close = read_elements(json, i, out.elements);
      if (close == std::string_view::npos)
        return std::nullopt;
      out.envelope.reserve(json.size() - (close - i) + 2);
      out.envelope.append(json.substr(0, i));
      out.envelope.append("[]");
      out.envelope.append(json.substr(close + 1));
      return out;
    }
    auto end = skip_value(json, i, 1);
    if (end == std::string_view::npos || json[end] != ',')
      return std::nullopt; // `}`: the member is absent
    i = skip_space(json, end + 1);
  }
  return std::nullopt;
}

} // namespace schedopt
