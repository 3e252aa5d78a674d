// RFC 3339 timestamps as the API server writes them and as Go's time.Parse reads them.
#include <boost/test/unit_test.hpp>

#include "model/timestamp.hpp"

using namespace schedopt;
using namespace std::chrono;

namespace {

int64_t unix_seconds(timestamp t) {
  return duration_cast<seconds>(t.time_since_epoch()).count();
}

int64_t unix_micros(timestamp t) {
  return duration_cast<microseconds>(t.time_since_epoch()).count();
}

} // namespace

BOOST_AUTO_TEST_SUITE(rfc3339)

BOOST_AUTO_TEST_CASE(parses_utc_seconds) {
  auto t = parse_rfc3339("2026-11-30T12:00:00Z");
  BOOST_REQUIRE(t);
  BOOST_TEST(unix_seconds(*t) == 1796040000);
  BOOST_TEST(unix_seconds(*parse_rfc3339("1970-01-01T00:00:00Z")) == 0);
  BOOST_TEST(unix_seconds(*parse_rfc3339("2000-02-29T23:59:59Z")) == 951868799);
}

BOOST_AUTO_TEST_CASE(parses_fractions_and_offsets) {
  auto micro = parse_rfc3339("2026-11-30T12:00:00.123456Z");
  BOOST_REQUIRE(micro);
  BOOST_TEST(unix_micros(*micro) == 1796040000123456);
  BOOST_TEST(unix_micros(*parse_rfc3339("2026-11-30T12:00:00.5Z")) == 1796040000500000);
  BOOST_TEST(unix_micros(*parse_rfc3339("2026-11-30T12:00:00.123456789Z")) == 1796040000123456);
  BOOST_TEST(unix_seconds(*parse_rfc3339("2026-11-30T14:00:00+02:00")) == 1796040000);
  BOOST_TEST(unix_seconds(*parse_rfc3339("2026-11-30T06:30:00-05:30")) == 1796040000);
  BOOST_TEST(unix_seconds(*parse_rfc3339("2026-11-30t12:00:00z")) == 1796040000);
}

BOOST_AUTO_TEST_CASE(rejects_malformed_naming_the_input) {
  const char* bad[] = {"",
                       "2026-11-30",
                       "2026-11-30 12:00:00Z",
                       "2026-11-30T12:00:00",
                       "2026-13-01T00:00:00Z",
                       "2026-02-29T00:00:00Z",
                       "2026-11-31T00:00:00Z",
                       "2026-11-30T24:00:00Z",
                       "2026-11-30T12:60:00Z",
                       "2026-11-30T12:00:00.Z",
                       "2026-11-30T12:00:00Zjunk",
                       "2026-11-30T12:00:00+2:00",
                       "abcd-11-30T12:00:00Z"};
  for (const char* text : bad) {
    auto t = parse_rfc3339(text);
    BOOST_TEST_INFO("input " << text);
    BOOST_REQUIRE(!t);
    BOOST_TEST(t.err().code == ec::invalid_timestamp);
    BOOST_TEST(t.err().message.find(std::string("\"") + text + "\"") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(formats_seconds_and_micros_in_utc) {
  timestamp t{seconds{1796040000} + microseconds{123456}};
  BOOST_TEST(format_rfc3339(t) == "2026-11-30T12:00:00Z");
  BOOST_TEST(format_rfc3339_micro(t) == "2026-11-30T12:00:00.123456Z");
  BOOST_TEST(format_rfc3339(timestamp{}) == "1970-01-01T00:00:00Z");
  BOOST_TEST(format_rfc3339(timestamp{seconds{-1}}) == "1969-12-31T23:59:59Z");
  BOOST_TEST(format_rfc3339(timestamp{seconds{951868799}}) == "2000-02-29T23:59:59Z");
}

BOOST_AUTO_TEST_CASE(format_then_parse_round_trips) {
  for (int64_t s : {int64_t{0}, int64_t{1796040000}, int64_t{4102444799}, int64_t{-86400}}) {
    timestamp t{seconds{s} + microseconds{654321}};
    BOOST_TEST(unix_seconds(*parse_rfc3339(format_rfc3339(t))) == s);
    BOOST_TEST(unix_micros(*parse_rfc3339(format_rfc3339_micro(t))) == unix_micros(t));
  }
}

// Found by test/fuzz rfc3339 (corpus regression-year-0000): a time outside what int64
// nanoseconds hold overflowed (UB) instead of failing.
BOOST_AUTO_TEST_CASE(times_beyond_the_nanosecond_range_are_errors) {
  for (const char* text : {"0000-01-01T00:00:00+01:00", "0001-01-01T00:00:00Z",
                           "1677-09-21T00:12:43Z", "2262-04-11T23:47:17Z",
                           "9999-12-31T23:59:59Z"}) {
    auto t = parse_rfc3339(text);
    BOOST_TEST_REQUIRE(!t, text);
    BOOST_TEST(t.err().code == ec::invalid_timestamp);
    BOOST_TEST(t.err().message.find("out of range") != std::string::npos, t.err().message);
  }
  BOOST_TEST(unix_seconds(*parse_rfc3339("1678-01-01T00:00:00Z")) == int64_t{-9214560000});
  BOOST_TEST(unix_seconds(*parse_rfc3339("2261-12-31T23:59:59Z")) == int64_t{9214646399});
}

// Found by test/fuzz rfc3339 (corpus regression-pre-1970-nanos): before 1970 the
// microsecond form rounded toward zero, printing an instant later than the time.
BOOST_AUTO_TEST_CASE(micro_format_truncates_down_before_1970) {
  auto t = *parse_rfc3339("1969-12-31T23:59:59.588888888Z");
  BOOST_TEST(format_rfc3339_micro(t) == "1969-12-31T23:59:59.588888Z");
  BOOST_TEST(format_rfc3339(t) == "1969-12-31T23:59:59Z");
  BOOST_TEST(format_rfc3339_micro(timestamp{nanoseconds{-1}}) == "1969-12-31T23:59:59.999999Z");
  BOOST_TEST(format_rfc3339_micro(timestamp{nanoseconds{1}}) == "1970-01-01T00:00:00.000000Z");
}

BOOST_AUTO_TEST_SUITE_END()
