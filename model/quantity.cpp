// resource.Quantity parsing: <sign><digits>[.<digits>]<suffix>, suffix one of the binary
// (Ki..Ei), decimal (n, u, m, "", k, M, G, T, P, E) or exponent (e3, E-2) forms.
#include "model/quantity.hpp"

#include <cmath>
#include <cstdio>

namespace schedopt {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The suffix's multiplier, or a negative number when it is no suffix at all.
long double multiplier(std::string_view suffix) {
  struct unit {
    std::string_view name;
    long double factor;
  };
  static const unit units[] = {
    {"", 1.0L},      {"n", 1e-9L},         {"u", 1e-6L},         {"m", 1e-3L},
    {"k", 1e3L},     {"M", 1e6L},          {"G", 1e9L},          {"T", 1e12L},
    {"P", 1e15L},    {"E", 1e18L},         {"Ki", 1024.0L},      {"Mi", 1048576.0L},
    {"Gi", 1073741824.0L}, {"Ti", 1099511627776.0L}, {"Pi", 1125899906842624.0L},
    {"Ei", 1152921504606846976.0L},
  };
  for (const auto& u : units)
    if (u.name == suffix)
      return u.factor;
  if (suffix.size() >= 2 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::size_t i = 1;
    bool negative = false;
    if (suffix[i] == '+' || suffix[i] == '-')
      negative = suffix[i++] == '-';
    if (i == suffix.size())
      return -1;
    int exponent = 0;
    for (; i < suffix.size(); ++i) {
      if (!is_digit(suffix[i]) || exponent > 100)
        return -1;
      exponent = exponent * 10 + (suffix[i] - '0');
    }
    return std::pow(10.0L, negative ? -exponent : exponent);
  }
  return -1;
}

} // namespace

std::optional<int64_t> parse_quantity(std::string_view text, int64_t scale) {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-'))
    negative = text[i++] == '-';
  long double value = 0;
  std::size_t digits = 0;
  for (; i < text.size() && is_digit(text[i]); ++i, ++digits)
    value = value * 10 + (text[i] - '0');
  if (i < text.size() && text[i] == '.') {
    long double place = 0.1L;
    for (++i; i < text.size() && is_digit(text[i]); ++i, ++digits, place /= 10)
      value += (text[i] - '0') * place;
  }
  if (digits == 0)
    return std::nullopt;
  auto factor = multiplier(text.substr(i));
  if (factor < 0)
    return std::nullopt;
  long double scaled = value * factor * static_cast<long double>(scale);
  if (negative && scaled != 0)
    return std::nullopt;
  // Round up, but forgive the float noise of e.g. 0.1 * 1000.
  long double rounded = std::roundl(scaled);
  if (std::fabs(scaled - rounded) > scaled * 1e-15L)
    rounded = std::ceil(scaled);
  if (rounded > 9.2e18L)
    return std::nullopt;
  return static_cast<int64_t>(rounded);
}

std::string format_cpu(int64_t millis) {
  if (millis % 1000 == 0)
    return std::to_string(millis / 1000);
  return std::to_string(millis) + "m";
}

std::string format_memory(int64_t bytes) {
  static const char* names[] = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
  for (int k = 0; k < 6; ++k) {
    int64_t unit = int64_t{1} << (10 * (6 - k));
    if (bytes < unit)
      continue;
    if (bytes % unit == 0)
      return std::to_string(bytes / unit) + names[k];
    auto tenths = static_cast<int64_t>(std::floor(static_cast<long double>(bytes) * 10 / unit));
    char buf[48];
    std::snprintf(buf, sizeof buf, "%lld.%lld%s", static_cast<long long>(tenths / 10),
                  static_cast<long long>(tenths % 10), names[k]);
    return buf;
  }
  return std::to_string(bytes);
}

} // namespace schedopt
