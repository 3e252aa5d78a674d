// Go's time.ParseDuration grammar, `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, re-implemented
// digit for digit (same overflow rules, same float rounding of fractions) so a value
// accepted by kubectl's validation means the same thing here.
#include "model/duration.hpp"

#include <cstdint>

namespace schedopt {

namespace {

constexpr uint64_t max_magnitude = uint64_t{1} << 63;

error invalid(std::string_view input, std::string_view why) {
  std::string msg = "invalid duration \"";
  msg.append(input);
  msg += "\": ";
  msg.append(why);
  return make_error(ec::invalid_duration, std::move(msg));
}

// Nanoseconds per unit; 0 for an unknown unit. Both micro signs are accepted, as Go does.
uint64_t unit_nanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1000;
  if (unit == "ms") return 1000 * 1000;
  if (unit == "s") return 1000 * 1000 * 1000;
  if (unit == "m") return uint64_t{60} * 1000 * 1000 * 1000;
  if (unit == "h") return uint64_t{3600} * 1000 * 1000 * 1000;
  return 0;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

} // namespace

expected<duration> parse_go_duration(std::string_view text) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0")
    return duration{0};
  if (s.empty())
    return invalid(text, "empty duration");
  uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || is_digit(s[0])))
      return invalid(text, "expected a number followed by a unit (ns, us, ms, s, m, h)");
    // Integer part.
    uint64_t whole = 0;
    std::size_t i = 0;
    for (; i < s.size() && is_digit(s[i]); ++i) {
      if (whole > max_magnitude / 10)
        return invalid(text, "value out of range");
      whole = whole * 10 + static_cast<uint64_t>(s[i] - '0');
      if (whole > max_magnitude)
        return invalid(text, "value out of range");
    }
    bool had_integer = i > 0;
    s.remove_prefix(i);
    // Fraction: stops accumulating precision on overflow, like Go's leadingFraction.
    uint64_t fraction = 0;
    double scale = 1;
    bool had_fraction = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      bool overflow = false;
      std::size_t j = 0;
      for (; j < s.size() && is_digit(s[j]); ++j) {
        if (overflow)
          continue;
        if (fraction > (max_magnitude - 1) / 10) {
          overflow = true;
          continue;
        }
        uint64_t next = fraction * 10 + static_cast<uint64_t>(s[j] - '0');
        if (next > max_magnitude) {
          overflow = true;
          continue;
        }
        fraction = next;
        scale *= 10;
      }
      had_fraction = j > 0;
      s.remove_prefix(j);
    }
    if (!had_integer && !had_fraction)
      return invalid(text, "expected digits before the unit");
    // Unit: everything up to the next number.
    std::size_t k = 0;
    while (k < s.size() && !(s[k] == '.' || is_digit(s[k])))
      ++k;
    if (k == 0)
      return invalid(text, "missing unit (ns, us, ms, s, m, h)");
    std::string_view unit = s.substr(0, k);
    s.remove_prefix(k);
    uint64_t per_unit = unit_nanos(unit);
    if (per_unit == 0)
      return invalid(text, "unknown unit \"" + std::string(unit) + "\" (use ns, us, ms, s, m, h)");
    if (whole > max_magnitude / per_unit)
      return invalid(text, "value out of range");
    whole *= per_unit;
    if (fraction > 0) {
      // Go uses float64 here too: nanosecond accurate for fractions of an hour.
      whole += static_cast<uint64_t>(static_cast<double>(fraction) *
                                     (static_cast<double>(per_unit) / scale));
      if (whole > max_magnitude)
        return invalid(text, "value out of range");
    }
    total += whole;
    if (total > max_magnitude)
      return invalid(text, "value out of range");
  }
  // Go accepts negative durations; a period or timeout never is one.
  if (negative && total != 0)
    return invalid(text, "negative duration");
  if (total > max_magnitude - 1)
    return invalid(text, "value out of range");
  return duration{static_cast<int64_t>(total)};
}

namespace {

// Writes v / 10^precision's fraction as ".123" without trailing zeros (nothing when
// zero) in front of `out`'s current content; returns v / 10^precision.
uint64_t prepend_fraction(std::string& out, uint64_t v, int precision) {
  bool printing = false;
  std::string digits;
  for (int i = 0; i < precision; ++i) {
    uint64_t digit = v % 10;
    printing = printing || digit != 0;
    if (printing)
      digits.insert(digits.begin(), static_cast<char>('0' + digit));
    v /= 10;
  }
  if (printing)
    out.insert(0, "." + digits);
  return v;
}

void prepend_int(std::string& out, uint64_t v) {
  out.insert(0, std::to_string(v));
}

} // namespace

std::string format_go_duration(duration d) {
  int64_t ns = d.count();
  bool negative = ns < 0;
  uint64_t u = negative ? uint64_t{0} - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  std::string out;
  constexpr uint64_t second = 1000 * 1000 * 1000;
  if (u < second) {
    // Below a second Go switches to the smallest fitting unit: "1.5ms", "300ns".
    int precision = 0;
    if (u == 0)
      return "0s";
    if (u < 1000) {
      out = "ns";
    } else if (u < 1000 * 1000) {
      precision = 3;
      out = "\xC2\xB5s";
    } else {
      precision = 6;
      out = "ms";
    }
    u = prepend_fraction(out, u, precision);
    prepend_int(out, u);
  } else {
    out = "s";
    u = prepend_fraction(out, u, 9);
    prepend_int(out, u % 60);
    u /= 60;
    if (u > 0) {
      out.insert(0, "m");
      prepend_int(out, u % 60);
      u /= 60;
      // Go stops at hours because days vary in length.
      if (u > 0) {
        out.insert(0, "h");
        prepend_int(out, u);
      }
    }
  }
  if (negative)
    out.insert(0, "-");
  return out;
}

} // namespace schedopt
