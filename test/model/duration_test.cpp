// Go duration parsing and printing must match time.ParseDuration / Duration.String.
#include <boost/test/unit_test.hpp>

#include "model/duration.hpp"

using namespace schedopt;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(go_duration)

BOOST_AUTO_TEST_CASE(parses_every_unit_and_combinations) {
  struct row {
    const char* text;
    duration want;
  };
  const row rows[] = {
    {"0", 0ns},          {"0s", 0ns},          {"+5s", 5s},           {"90s", 90s},
    {"1h30m", 90min},    {"1.5h", 90min},      {"300ms", 300ms},      {"2h45m10.5s", 2h + 45min + 10500ms},
    {"1ns", 1ns},        {"1us", 1us},         {"1\xC2\xB5s", 1us},   {"1\xCE\xBCs", 1us},
    {"1.s", 1s},         {".5s", 500ms},       {"1h1h", 2h},          {"30m", 30min},
    {"0.000000001s", 1ns}, {"1.0000000001s", 1s}, {"2562047h", 2562047h},
  };
  for (const auto& r : rows) {
    auto d = parse_go_duration(r.text);
    BOOST_TEST_INFO("input " << r.text);
    BOOST_REQUIRE(d);
    BOOST_TEST(d->count() == r.want.count());
  }
}

BOOST_AUTO_TEST_CASE(rejects_bad_input_naming_it) {
  const char* bad[] = {"abc", "5", "1x", "", "-", "+", ".", ".s", "1.5", "s", "1h 30m", "1H",
                       "9999999999999999999h", "2562048h"};
  for (const char* text : bad) {
    auto d = parse_go_duration(text);
    BOOST_TEST_INFO("input " << text);
    BOOST_REQUIRE(!d);
    BOOST_TEST(d.err().code == ec::invalid_duration);
    BOOST_TEST(d.err().message.find(std::string("invalid duration \"") + text + "\": ")
               == 0u);
  }
}

BOOST_AUTO_TEST_CASE(error_messages_say_why) {
  BOOST_TEST(parse_go_duration("5").err().message == "invalid duration \"5\": missing unit (ns, us, ms, s, m, h)");
  BOOST_TEST(parse_go_duration("1x").err().message.find("unknown unit \"x\"") != std::string::npos);
  BOOST_TEST(parse_go_duration("").err().message == "invalid duration \"\": empty duration");
}

BOOST_AUTO_TEST_CASE(negative_durations_are_rejected) {
  auto d = parse_go_duration("-5m");
  BOOST_REQUIRE(!d);
  BOOST_TEST(d.err().message == "invalid duration \"-5m\": negative duration");
  // Go reads "-0" as zero; zero is not negative.
  BOOST_TEST(parse_go_duration("-0")->count() == 0);
  BOOST_TEST(parse_go_duration("-0s")->count() == 0);
}

BOOST_AUTO_TEST_CASE(formats_like_go) {
  struct row {
    duration d;
    const char* want;
  };
  const row rows[] = {
    {0ns, "0s"},          {1ns, "1ns"},           {1100ns, "1.1\xC2\xB5s"},
    {2200us, "2.2ms"},    {300ms, "300ms"},       {1s, "1s"},
    {90s, "1m30s"},       {90min, "1h30m0s"},     {1h, "1h0m0s"},
    {2h + 45min + 10500ms, "2h45m10.5s"},         {-5s, "-5s"},
    {duration{9223372036854775807}, "2562047h47m16.854775807s"},
    {duration{-9223372036854775807 - 1}, "-2562047h47m16.854775808s"},
  };
  for (const auto& r : rows)
    BOOST_TEST(format_go_duration(r.d) == r.want);
}

BOOST_AUTO_TEST_CASE(format_then_parse_round_trips) {
  for (auto d : {duration{1}, duration{999}, duration{1500000}, duration{3600000000001},
                 duration{86400000000000}}) {
    auto back = parse_go_duration(format_go_duration(d));
    BOOST_REQUIRE(back);
    BOOST_TEST(back->count() == d.count());
  }
}

BOOST_AUTO_TEST_SUITE_END()
