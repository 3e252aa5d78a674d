// actors/logging: log_kv's structured keys, as JSON object keys with --log-format=json
// and as key=value pairs in text mode.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "actors/logging.hpp"

using namespace schedopt;

namespace {

/// Captures the default logger's lines while alive; text format and info level after.
struct captured_log {
  explicit captured_log(const std::string& format) {
    configure_logging(format, "info");
    sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
    spdlog::default_logger()->sinks().push_back(sink);
    configure_logging(format, "info"); // applies the formatter to the new sink too
  }
  ~captured_log() {
    auto& sinks = spdlog::default_logger()->sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink), sinks.end());
    configure_logging("text", "info");
  }
  std::vector<std::string> lines() const {
    std::vector<std::string> out_lines;
    std::istringstream in(out.str());
    for (std::string l; std::getline(in, l);)
      out_lines.push_back(l);
    return out_lines;
  }
  std::ostringstream out;
  spdlog::sink_ptr sink;
};

} // namespace

BOOST_AUTO_TEST_SUITE(logging)

BOOST_AUTO_TEST_CASE(json_lines_carry_the_keys_as_object_members) {
  captured_log log("json");
  log_kv(spdlog::level::warn, "migration \"failed\"",
         {{"request", "so1"}, {"namespace", "ns1"}, {"vmi", "vm-a"},
          {"vmim", "vm-a-schedopt-x"}, {"node", ""}, {"error", "MigrationRunFailed: a\nb"}});
  spdlog::info("plain line");
  auto lines = log.lines();
  BOOST_REQUIRE_EQUAL(lines.size(), 2u);
  auto line = nlohmann::json::parse(lines[0]);
  BOOST_CHECK_EQUAL(line.at("level").get<std::string>(), "warning");
  BOOST_CHECK_EQUAL(line.at("msg").get<std::string>(), "migration \"failed\"");
  BOOST_CHECK_EQUAL(line.at("request").get<std::string>(), "so1");
  BOOST_CHECK_EQUAL(line.at("namespace").get<std::string>(), "ns1");
  BOOST_CHECK_EQUAL(line.at("vmi").get<std::string>(), "vm-a");
  BOOST_CHECK_EQUAL(line.at("vmim").get<std::string>(), "vm-a-schedopt-x");
  BOOST_CHECK_EQUAL(line.at("error").get<std::string>(), "MigrationRunFailed: a\nb");
  BOOST_CHECK(!line.contains("node")); // empty values are left out
  BOOST_CHECK(line.contains("ts"));
  auto plain = nlohmann::json::parse(lines[1]);
  BOOST_CHECK_EQUAL(plain.at("msg").get<std::string>(), "plain line");
  BOOST_CHECK_EQUAL(plain.size(), 3u); // ts, level, msg: no keys left over
}

BOOST_AUTO_TEST_CASE(text_lines_append_key_value_pairs) {
  BOOST_CHECK_EQUAL(format_kv_text("migrated to n1", {{"request", "so1"}, {"vmi", "vm-a"},
                                                      {"vmim", ""}, {"node", "n1"}}),
                    "migrated to n1 request=so1 vmi=vm-a node=n1");
  BOOST_CHECK_EQUAL(format_kv_text("failed", {{"error", "Reason: \"x\" y"}}),
                    "failed error=\"Reason: \\\"x\\\" y\"");
  captured_log log("text");
  log_kv(spdlog::level::info, "started", {{"request", "so1"}});
  log_kv(spdlog::level::debug, "hidden", {{"request", "so1"}}); // below the level
  auto lines = log.lines();
  BOOST_REQUIRE_EQUAL(lines.size(), 1u);
  BOOST_TEST(lines[0].find("info  started request=so1") != std::string::npos, lines[0]);
}

BOOST_AUTO_TEST_CASE(text_lines_show_control_characters_as_escapes) {
  captured_log log("text");
  // A carriage return and an ANSI escape could hide or rewrite what an operator sees.
  spdlog::warn("bad value {}", std::string("ok\rFAKE \x1b[2Kline\nnext"));
  log_kv(spdlog::level::warn, "rejected", {{"error", "x\ry\x1bz"}});
  auto lines = log.lines();
  BOOST_REQUIRE_EQUAL(lines.size(), 2u); // the newline did not split the first line
  for (auto& line : lines)
    BOOST_TEST(std::none_of(line.begin(), line.end(),
                            [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }),
               line);
  BOOST_TEST(lines[0].find("bad value ok\\rFAKE \\x1b[2Kline\\nnext") != std::string::npos, lines[0]);
  BOOST_TEST(lines[1].find("error=\"x\\ry\\x1bz\"") != std::string::npos, lines[1]);
}

BOOST_AUTO_TEST_CASE(oversized_values_are_logged_cut) {
  std::string huge(1 << 20, '9'); // a megabyte coolOffPeriod, say
  for (auto format : {"text", "json"}) {
    captured_log log(format);
    log_kv(spdlog::level::warn, "invalid coolOffPeriod", {{"value", huge}});
    spdlog::warn("{}", huge);
    auto lines = log.lines();
    BOOST_REQUIRE_EQUAL(lines.size(), 2u);
    for (auto& line : lines) {
      BOOST_TEST(line.size() < 2048u, format << ": " << line.size() << " bytes");
      BOOST_TEST(line.find("more bytes)") != std::string::npos, format);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
