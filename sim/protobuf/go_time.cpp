#include "sim/protobuf/go_time.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace schedopt::sim::protobuf {

namespace {

std::string utc(std::int64_t seconds, const char* format) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

/// Go's fmtFrac: the `digits` low decimal digits of v as a fraction without trailing
/// zeros (nothing when they are all zero); v keeps the integer part.
std::string fraction(std::uint64_t& v, int digits) {
  std::string out;
  bool printing = false;
  for (int i = 0; i < digits; ++i) {
    auto digit = static_cast<char>('0' + v % 10);
    printing = printing || digit != '0';
    if (printing)
      out.insert(out.begin(), digit);
    v /= 10;
  }
  return out.empty() ? out : "." + out;
}

} // namespace

std::string format_rfc3339(std::int64_t unix_seconds) {
  return utc(unix_seconds, "%Y-%m-%dT%H:%M:%SZ");
}

std::string format_rfc3339_micro(std::int64_t unix_seconds, std::int32_t nanos) {
  char micro[8];
  std::snprintf(micro, sizeof micro, "%06d", nanos / 1000);
  return utc(unix_seconds, "%Y-%m-%dT%H:%M:%S.") + micro + "Z";
}

std::optional<unix_time> parse_rfc3339(const std::string& text) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &consumed)
        != 6
      || consumed != 19)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  unix_time out;
  std::size_t i = 19;
  if (i < text.size() && text[i] == '.') {
    std::int64_t scale = 100000000;
    for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, scale /= 10)
      out.nanos += static_cast<std::int32_t>((text[i] - '0') * scale);
  }
  std::int64_t offset = 0;
  if (i < text.size() && text[i] == 'Z') {
    ++i;
  } else if (i + 6 == text.size() && (text[i] == '+' || text[i] == '-')) {
    int hours = 0, minutes = 0;
    if (std::sscanf(text.c_str() + i + 1, "%2d:%2d", &hours, &minutes) != 2)
      return std::nullopt;
    offset = (text[i] == '+' ? 1 : -1) * (hours * 3600 + minutes * 60);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != text.size())
    return std::nullopt;
  out.seconds = static_cast<std::int64_t>(timegm(&tm)) - offset;
  return out;
}

std::string format_go_duration(std::int64_t nanoseconds) {
  if (nanoseconds == 0)
    return "0s";
  std::string sign = nanoseconds < 0 ? "-" : "";
  std::uint64_t u = nanoseconds < 0 ? 0 - static_cast<std::uint64_t>(nanoseconds) : static_cast<std::uint64_t>(nanoseconds);
  if (u < 1000)
    return sign + std::to_string(u) + "ns";
  if (u < 1000000000) {
    bool micro = u < 1000000;
    auto frac = fraction(u, micro ? 3 : 6);
    return sign + std::to_string(u) + frac + (micro ? "\u00b5s" : "ms");
  }
  auto frac = fraction(u, 9);
  std::string out = std::to_string(u % 60) + frac + "s";
  u /= 60;
  if (u > 0) {
    out = std::to_string(u % 60) + "m" + out;
    u /= 60;
    if (u > 0)
      out = std::to_string(u) + "h" + out;
  }
  return sign + out;
}

std::optional<std::int64_t> parse_go_duration(const std::string& text) {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+'))
    negative = text[i++] == '-';
  if (text.substr(i) == "0")
    return 0;
  long double total = 0;
  bool any = false;
  while (i < text.size()) {
    std::size_t start = i;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.'))
      ++i;
    if (i == start)
      return std::nullopt;
    long double value = std::stold(text.substr(start, i - start));
    std::size_t unit_start = i;
    while (i < text.size() && !((text[i] >= '0' && text[i] <= '9') || text[i] == '.'))
      ++i;
    auto unit = text.substr(unit_start, i - unit_start);
    long double scale = unit == "ns"                   ? 1
                        : unit == "us" || unit == "\u00b5s" || unit == "\u03bcs" ? 1e3
                        : unit == "ms"                 ? 1e6
                        : unit == "s"                  ? 1e9
                        : unit == "m"                  ? 60e9
                        : unit == "h"                  ? 3600e9
                                                       : 0;
    if (scale == 0)
      return std::nullopt;
    total += value * scale;
    any = true;
  }
  if (!any)
    return std::nullopt;
  auto ns = static_cast<std::int64_t>(std::llround(total));
  return negative ? -ns : ns;
}

} // namespace schedopt::sim::protobuf
