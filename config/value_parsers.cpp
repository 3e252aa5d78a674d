// Strict scalar parsing: the whole text must be the value, so "5x" is an error rather
// than a silent 5.
#include "config/value_parsers.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace schedopt::config_detail {

std::string trim(const std::string& text) {
  auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    return {};
  auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// Go's strconv.ParseBool spellings, since operators write these in env and ConfigMaps.
std::string parse_bool(const std::string& text, bool& out) {
  if (text == "1" || text == "t" || text == "T" || text == "true" || text == "TRUE"
      || text == "True") {
    out = true;
    return {};
  }
  if (text == "0" || text == "f" || text == "F" || text == "false" || text == "FALSE"
      || text == "False") {
    out = false;
    return {};
  }
  return "not a boolean (want true or false)";
}

std::string parse_int(const std::string& text, int64_t& out) {
  int64_t value = 0;
  auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range)
    return "integer out of range";
  if (text.empty() || ec != std::errc() || ptr != end)
    return "not an integer";
  out = value;
  return {};
}

std::string parse_number(const std::string& text, double& out) {
  if (text.empty())
    return "not a number";
  errno = 0;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value))
    return "not a number";
  out = value;
  return {};
}

std::string parse_duration(const std::string& text, duration& out) {
  auto d = parse_go_duration(text);
  if (!d)
    return d.err().message;
  out = *d;
  return {};
}

std::vector<std::string> parse_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto comma = text.find(',', start);
    if (comma == std::string::npos)
      comma = text.size();
    auto item = trim(text.substr(start, comma - start));
    if (!item.empty())
      out.push_back(item);
    start = comma + 1;
  }
  return out;
}

} // namespace schedopt::config_detail
