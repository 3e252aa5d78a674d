// The alerts of deploy/prometheus/prometheusrule.yaml, checked by Prometheus's own tool.
// The PrometheusRule's .spec is written as a plain rules file (promtool does not read
// Operator objects); `promtool check rules` must accept it, and `promtool test rules`
// runs the unit tests of deploy/prometheus/tests/ against it: every alert fires on the
// series that mean trouble and stays silent on series that look alike.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>

#include "deploy/prometheus_support.hpp"

using namespace schedopt::deploy_test;
namespace utf = boost::unit_test;

namespace {

const std::string tests_dir = source_dir + "/deploy/prometheus/tests";
// The name the unit tests' rule_files give the extracted rules.
const char* rules_file_name = "schedopt-rules.yaml";

/// The promtool unit-test files of deploy/prometheus/tests.
std::vector<fs::path> unit_test_files() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(tests_dir))
    if (e.path().extension() == ".yaml")
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(alerts)

BOOST_AUTO_TEST_CASE(prometheus_rule_spec_passes_promtool_check_rules, *utf::timeout(60)) {
  const std::string promtool = require_promtool();
  scratch_dir tmp;
  write_rules_file(tmp.path / rules_file_name);
  std::size_t rules = 0;
  for (const auto& group : prometheus_rule()["spec"]["groups"])
    rules += group["rules"].size();
  BOOST_REQUIRE(rules >= 4u);

  auto checked = run_shell("'" + promtool + "' check rules '" + (tmp.path / rules_file_name).string() + "'");
  BOOST_TEST(checked.first == 0, checked.second);
  BOOST_TEST(checked.second.find("SUCCESS: " + std::to_string(rules) + " rules found") != std::string::npos,
             checked.second);
}

BOOST_AUTO_TEST_CASE(every_alert_has_a_firing_and_a_silent_unit_test) {
  // alert -> {cases where it fires, cases where it stays silent}
  std::map<std::string, std::pair<int, int>> seen;
  for (const auto& alert : shipped_alerts())
    seen[alert["alert"].as<std::string>()];
  BOOST_REQUIRE(!seen.empty());
  auto files = unit_test_files();
  BOOST_REQUIRE_MESSAGE(!files.empty(), "no promtool unit tests in " + tests_dir);
  for (const auto& file : files) {
    YAML::Node doc = YAML::LoadFile(file.string());
    BOOST_TEST(doc["rule_files"][0].as<std::string>() == rules_file_name, file);
    for (const auto& test : doc["tests"])
      for (const auto& check : test["alert_rule_test"]) {
        std::string name = check["alertname"].as<std::string>();
        BOOST_TEST_CONTEXT(file.filename() << ": " << test["name"].as<std::string>()) {
          BOOST_TEST(seen.count(name) == 1u, "unit test of an alert the PrometheusRule lacks: " + name);
        }
        auto& [fires, silent] = seen[name];
        ++(check["exp_alerts"].size() > 0 ? fires : silent);
      }
  }
  for (const auto& [alert, counts] : seen) {
    BOOST_TEST(counts.first > 0, alert << " has no unit test where it fires");
    BOOST_TEST(counts.second > 0, alert << " has no unit test where it stays silent");
  }
}

BOOST_AUTO_TEST_CASE(promtool_unit_tests_pass, *utf::timeout(120)) {
  const std::string promtool = require_promtool();
  scratch_dir tmp;
  write_rules_file(tmp.path / rules_file_name);
  // promtool resolves rule_files next to each test file: copies of them sit beside the
  // extracted rules.
  std::string args;
  for (const auto& file : unit_test_files()) {
    fs::copy_file(file, tmp.path / file.filename());
    args += " '" + file.filename().string() + "'";
  }
  BOOST_REQUIRE(!args.empty());
  auto tested = run_shell("cd '" + tmp.path.string() + "' && '" + promtool + "' test rules" + args);
  BOOST_TEST(tested.first == 0, tested.second);
  BOOST_TEST(tested.second.find("FAILED") == std::string::npos, tested.second);
  BOOST_TEST_MESSAGE(tested.second);
}

BOOST_AUTO_TEST_SUITE_END()
