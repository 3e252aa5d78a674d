#include "sim/type_meta_text.hpp"

namespace schedopt::sim {

namespace {

/// The index of the quote closing the string that opens at `open`.
std::size_t string_end(std::string_view text, std::size_t open) {
  for (std::size_t j = open + 1; j < text.size(); ++j) {
    if (text[j] == '\\')
      ++j;
    else if (text[j] == '"')
      return j;
  }
  return text.size();
}

std::size_t skip_space(std::string_view text, std::size_t at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\n' || text[at] == '\t' || text[at] == '\r'))
    ++at;
  return at;
}

} // namespace

std::vector<std::pair<std::size_t, std::size_t>> type_meta_ranges(std::string_view text) {
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  int depth = 0;
  bool expect_key = false;
  std::size_t last_comma = std::string_view::npos; // the comma before the member being read
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      auto end = string_end(text, i);
      if (end >= text.size())
        return {};
      if (depth == 1 && expect_key) {
        expect_key = false;
        auto key = text.substr(i + 1, end - i - 1);
        auto colon = skip_space(text, end + 1);
        auto value = colon < text.size() && text[colon] == ':' ? skip_space(text, colon + 1) : text.size();
        if ((key == "apiVersion" || key == "kind") && value < text.size() && text[value] == '"') {
          auto value_end = string_end(text, value);
          if (value_end >= text.size())
            return {};
          auto after = skip_space(text, value_end + 1);
          bool comma_free = last_comma != std::string_view::npos
                            && (ranges.empty() || ranges.back().second <= last_comma);
          if (after < text.size() && text[after] == ',')
            ranges.emplace_back(i, after + 1);
          else if (comma_free)
            ranges.emplace_back(last_comma, value_end + 1);
          else
            ranges.emplace_back(i, value_end + 1);
          i = value_end;
          continue;
        }
      }
      i = end;
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
      expect_key = c == '{' && depth == 1;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 1) {
      expect_key = true;
      last_comma = i;
    }
  }
  return ranges;
}

void append_without(std::string& out, std::string_view text,
                    const std::vector<std::pair<std::size_t, std::size_t>>& ranges) {
  std::size_t from = 0;
  for (const auto& [begin, end] : ranges) {
    out.append(text.substr(from, begin - from));
    from = end;
  }
  out.append(text.substr(from));
}

} // namespace schedopt::sim
