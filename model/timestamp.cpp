// RFC 3339 parsing and printing without the C library's time zone state (timegm is
// not portable and gmtime is not thread-safe): civil dates are converted by arithmetic.
#include "model/timestamp.hpp"

#include <cstdint>
#include <cstdio>

namespace schedopt {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

struct civil_date {
  int64_t year;
  unsigned month;
  unsigned day;
};

civil_date civil_from_days(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {y + (m <= 2), m, d};
}

bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned days_in_month(int64_t y, unsigned m) {
  static constexpr unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

error invalid(std::string_view text, const char* why) {
  std::string msg = "invalid timestamp \"";
  msg.append(text);
  msg += "\": ";
  msg += why;
  msg += " (want RFC 3339, e.g. 2026-11-30T12:00:00Z)";
  return make_error(ec::invalid_timestamp, std::move(msg));
}

// Reads exactly `n` digits at `pos`; false if any is not a digit.
bool read_digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size())
    return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

} // namespace

expected<timestamp> parse_rfc3339(std::string_view text) {
  int year, month, day, hour, minute, second;
  const std::string_view s = text;
  if (!read_digits(s, 0, 4, year) || s.size() < 20 || s[4] != '-' || !read_digits(s, 5, 2, month)
      || s[7] != '-' || !read_digits(s, 8, 2, day) || (s[10] != 'T' && s[10] != 't')
      || !read_digits(s, 11, 2, hour) || s[13] != ':' || !read_digits(s, 14, 2, minute)
      || s[16] != ':' || !read_digits(s, 17, 2, second))
    return invalid(text, "malformed date or time");
  if (month < 1 || month > 12 || day < 1
      || static_cast<unsigned>(day) > days_in_month(year, static_cast<unsigned>(month)))
    return invalid(text, "date out of range");
  if (hour > 23 || minute > 59 || second > 59)
    return invalid(text, "time out of range");
  std::size_t pos = 19;
  int64_t nanos = 0;
  if (s[pos] == '.') {
    ++pos;
    std::size_t digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 9)
        nanos = nanos * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0)
      return invalid(text, "empty fraction of a second");
    for (std::size_t i = digits; i < 9; ++i)
      nanos *= 10;
  }
  int64_t offset_seconds = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!read_digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':'
        || !read_digits(s, pos + 4, 2, om) || oh > 23 || om > 59)
      return invalid(text, "malformed time zone offset");
    offset_seconds = (oh * 3600 + om * 60) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return invalid(text, "missing time zone (Z or +hh:mm)");
  }
  if (pos != s.size())
    return invalid(text, "trailing characters");
  int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  // A timestamp counts int64 nanoseconds: 1677-09-21 to 2262-04-11. Outside, the
  // conversion below would overflow (e.g. Go's zero time, 0001-01-01T00:00:00Z).
  constexpr int64_t limit =
    std::chrono::duration_cast<std::chrono::seconds>(timestamp::duration::max()).count() - 1;
  if (seconds < -limit || seconds > limit)
    return invalid(text, "out of range (1678 to 2261)");
  auto since_epoch = std::chrono::seconds{seconds} + std::chrono::nanoseconds{nanos};
  return timestamp{std::chrono::duration_cast<timestamp::duration>(since_epoch)};
}

namespace {

std::string format(timestamp t, bool micro) {
  using namespace std::chrono;
  // floor, not duration_cast (toward zero): a digit printed is never later than t.
  auto us = floor<microseconds>(t.time_since_epoch()).count();
  // Floor division so instants before 1970 print correctly.
  int64_t secs = us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000);
  int64_t frac = us - secs * 1000000;
  int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
  int64_t rem = secs - days * 86400;
  civil_date date = civil_from_days(days);
  char buf[64];
  if (micro)
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02d.%06lldZ",
                  static_cast<long long>(date.year), date.month, date.day,
                  static_cast<int>(rem / 3600), static_cast<int>(rem / 60 % 60),
                  static_cast<int>(rem % 60), static_cast<long long>(frac));
  else
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02dZ",
                  static_cast<long long>(date.year), date.month, date.day,
                  static_cast<int>(rem / 3600), static_cast<int>(rem / 60 % 60),
                  static_cast<int>(rem % 60));
  return buf;
}

} // namespace

std::string format_rfc3339(timestamp t) { return format(t, false); }

std::string format_rfc3339_micro(timestamp t) { return format(t, true); }

} // namespace schedopt
