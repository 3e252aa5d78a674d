// The command line (docs/cli.md) end to end: `schedopt plan` against the simulator, bad flags and
// bad kubeconfig paths, and an invalid spec that the (non-validating) API server let in.
#include <boost/test/unit_test.hpp>

#include "e2e/e2e_fixture.hpp"

using namespace schedopt::e2e;

namespace {

std::size_t lines_in(const std::string& text) {
  std::size_t n = 0;
  for (char c : text)
    n += c == '\n';
  return n + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

} // namespace

BOOST_AUTO_TEST_SUITE(cli)

BOOST_AUTO_TEST_CASE(plan_prints_one_verdict_per_running_vmi_and_migrates_nothing) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "20", "--misplaced", "0.4", "--seed", "41"});
  auto truth = s.truth();
  BOOST_REQUIRE(!migratable_candidates(truth).empty());
  child_process plan({"plan", "--kubeconfig", s.sim().kubeconfig(), "--driver", "csi-topology", "-o", "json"});
  int code = plan.wait_exit(std::chrono::seconds(60));
  BOOST_REQUIRE_MESSAGE(code == 0, "schedopt plan exited " + std::to_string(code) + ": " + plan.log_tail());
  auto report = json::parse(plan.out(), nullptr, false);
  BOOST_REQUIRE_MESSAGE(report.is_array(), "plan -o json printed: " + plan.out());
  BOOST_TEST(report.size() == truth.size());
  std::map<std::string, json> by_vm;
  for (auto& e : report)
    by_vm[e.value("namespace", "") + "/" + e.value("name", "")] = e;
  for (auto& t : truth)
    BOOST_TEST_CONTEXT("vm " << t.key()) {
      BOOST_REQUIRE(by_vm.count(t.key()) == 1);
      auto& e = by_vm[t.key()];
      BOOST_TEST(e.value("node", "") == t.node);
      std::string verdict = !t.has_driver_volume ? "none"
                            : !t.misplaced       ? "hyperconverged"
                            : t.node_score > 0   ? "semi"
                                                 : "non";
      BOOST_TEST(e.value("verdict", "") == verdict);
      if (t.has_driver_volume) {
        auto best = e.value("bestNodes", json::array()).get<std::vector<std::string>>();
        BOOST_TEST(std::set<std::string>(best.begin(), best.end()) == t.best);
        auto targets = e.value("targetNodes", json::array()).get<std::vector<std::string>>();
        std::sort(targets.begin(), targets.end());
        auto want = t.targets;
        std::sort(want.begin(), want.end());
        if (t.misplaced)
          BOOST_TEST(targets == want, boost::test_tools::per_element());
        else
          BOOST_TEST(targets.empty()); // it stays where it is: no target, as explain says
      }
      if (t.misplaced && t.live_migratable && !t.targets.empty())
        BOOST_TEST(e.value("disposition", "") == "eligible");
    }
  BOOST_TEST(s.schedopt_vmims().size() == 0u);
}

BOOST_AUTO_TEST_CASE(an_unknown_flag_exits_2_with_one_line) {
  child_process run({"run", "--bogus"});
  BOOST_TEST(run.wait_exit(std::chrono::seconds(30)) == 2);
  auto err = run.err();
  BOOST_TEST(lines_in(err) == 1u, "stderr: " << err);
  BOOST_TEST(err.find("--bogus") != std::string::npos, "stderr: " << err);
}

BOOST_AUTO_TEST_CASE(version_prints_the_version_and_revision_and_exits_0) {
  child_process version({"--version"});
  BOOST_TEST(version.wait_exit(std::chrono::seconds(30)) == 0);
  auto out = version.out();
  BOOST_TEST(out.rfind("schedopt 0.", 0) == 0, "stdout: " << out);
  BOOST_TEST(out.find(" (revision ") != std::string::npos, "stdout: " << out);
  BOOST_TEST(lines_in(out) == 1u, "stdout: " << out);
}

BOOST_AUTO_TEST_CASE(a_missing_kubeconfig_is_named_in_the_error) {
  child_process run({"run", "--kubeconfig", "/nonexistent/kubeconfig", "--metrics-listen", "127.0.0.1:0",
                     "--health-listen", "127.0.0.1:0"});
  int code = run.wait_exit(std::chrono::seconds(30));
  BOOST_TEST(code > 0);
  BOOST_TEST(run.err().find("/nonexistent/kubeconfig") != std::string::npos, "stderr: " << run.err());
}

BOOST_AUTO_TEST_CASE(an_invalid_cool_off_period_fails_the_request) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "10", "--misplaced", "0.3", "--seed", "43"});
  json body = {{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
               {"kind", "SchedulingOptimization"},
               {"metadata", {{"name", "bad-cool-off"}}},
               {"spec", {{"vmHyperconvergence", {{"enabled", true}, {"coolOffPeriod", "abc"}}}}}};
  auto reply = schedopt::test::http_request(s.sim(), "POST", requests_path, body.dump());
  if (reply.status != 201) {
    BOOST_TEST_MESSAGE("the API server validates coolOffPeriod (" << reply.status << "); nothing to test");
    return;
  }
  s.start_controller();
  auto r = s.wait_final("bad-cool-off");
  BOOST_TEST(status_of_request(r) == "Failed");
  BOOST_TEST(starts_with(reason_of_request(r), "invalid spec.vmHyperconvergence.coolOffPeriod \"abc\""),
             "reason: " << reason_of_request(r));
  BOOST_TEST(s.schedopt_vmims().size() == 0u);
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
