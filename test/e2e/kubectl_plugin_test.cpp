// The kubectl plugin end to end: stock kubectl finds build/bin/kubectl-schedopt on PATH
// and runs `kubectl schedopt status|plan|explain` against the simulator, the kubeconfig
// handed over in KUBECONFIG as a kubectl user has it.
#include <boost/test/unit_test.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include <sys/wait.h>

#include "e2e/e2e_fixture.hpp"
#include "sim/kubectl_runner.hpp"

using namespace schedopt::e2e;

namespace {

struct shell_result {
  int code = -1;
  std::string output; // stdout and stderr
};

/// `kubectl <args>` with build/bin first on PATH and KUBECONFIG naming the simulator's
/// kubeconfig (empty: unset), bounded at 90 s.
shell_result kubectl(const std::string& kubeconfig, const std::string& args) {
  auto binaries = schedopt::test::kubectl_binaries();
  BOOST_REQUIRE_MESSAGE(!binaries.empty(), "no kubectl on PATH");
  const char* path = std::getenv("PATH");
  std::string cmd = "env " + (kubeconfig.empty() ? "-u KUBECONFIG" : "KUBECONFIG='" + kubeconfig + "'")
                    + " PATH='" + std::string(SCHEDOPT_BINARY_DIR) + ":" + (path ? path : "")
                    + "' timeout 90 " + binaries.front().path + " " + args + " 2>&1";
  shell_result r;
  FILE* pipe = popen(cmd.c_str(), "r");
  BOOST_REQUIRE(pipe != nullptr);
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), pipe) != nullptr)
    r.output += buf.data();
  int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

/// The table row whose first column is `name`, split into columns.
std::vector<std::string> row_named(const std::string& table, const std::string& name) {
  for (const auto& l : lines(table)) {
    auto w = words(l);
    if (!w.empty() && w[0] == name)
      return w;
  }
  return {};
}

} // namespace

BOOST_AUTO_TEST_SUITE(kubectl_plugin)

BOOST_AUTO_TEST_CASE(kubectl_plugin_list_finds_kubectl_schedopt) {
  auto listed = kubectl("", "plugin list");
  // kubectl exits 1 when a plugin on PATH is shadowed or not executable; it still lists.
  BOOST_TEST(listed.output.find(std::string(SCHEDOPT_BINARY_DIR) + "/kubectl-schedopt")
               != std::string::npos,
             listed.output);
  auto help = kubectl("", "schedopt --help");
  BOOST_TEST(help.code == 0, help.output);
  BOOST_TEST(help.output.rfind("Usage: kubectl schedopt <command>", 0) == 0u, help.output);
  auto status_help = kubectl("", "schedopt status --help");
  BOOST_TEST(status_help.code == 0, status_help.output);
  BOOST_TEST(status_help.output.rfind("Usage: kubectl schedopt status [flags]", 0) == 0u,
             status_help.output);
  auto bad = kubectl("", "schedopt status --bogus");
  BOOST_TEST(bad.code == 2, bad.output);
  BOOST_TEST(lines(bad.output).size() == 1u, bad.output);
  BOOST_TEST(bad.output.find("unknown flag --bogus (see kubectl schedopt status --help)")
               != std::string::npos,
             bad.output);
}

BOOST_AUTO_TEST_CASE(kubectl_schedopt_status_lists_requests_and_the_running_ones_progress) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "30", "--misplaced", "0.5", "--seed", "7",
                              "--migration-duration", "120s"});
  const auto& kubeconfig = s.sim().kubeconfig();
  auto none = kubectl(kubeconfig, "schedopt status");
  BOOST_TEST(none.code == 0, none.output);
  BOOST_TEST(none.output == "No SchedulingOptimizations found.\n");

  // The first request opts out and finishes at once; the second migrates, slowly.
  s.create_request("a-opted-out", {{"vmHyperconvergence", {{"enabled", false}}}});
  s.create_request("b-running", scenario::enabled_spec({{"maxParallelMigrations", 2}}));
  s.start_controller();
  s.wait_final("a-opted-out");
  bool moving = eventually(
    [&] {
      auto r = s.request("b-running");
      return r.value("/status/stage"_json_pointer, std::string()) == "Migrating"
             && !s.schedopt_vmims().empty();
    },
    std::chrono::seconds(60), std::chrono::milliseconds(200));
  BOOST_REQUIRE_MESSAGE(moving, "b-running never reached Migrating with a VMIM");

  auto table = kubectl(kubeconfig, "schedopt status");
  BOOST_TEST_MESSAGE("kubectl schedopt status:\n" << table.output);
  BOOST_REQUIRE_MESSAGE(table.code == 0, table.output);
  // The columns kubectl get prints from the CRD's additionalPrinterColumns.
  auto got = kubectl(kubeconfig, "get schedulingoptimizations");
  BOOST_TEST_MESSAGE("kubectl get schedulingoptimizations:\n" << got.output);
  BOOST_REQUIRE_MESSAGE(got.code == 0, got.output);
  BOOST_TEST(words(lines(table.output).at(0)) == words(lines(got.output).at(0)),
             boost::test_tools::per_element());
  // The pod kind's counters are the wide columns (priority 1), after AGE.
  BOOST_TEST(got.output.find("PODS") == std::string::npos, got.output);
  auto wide = kubectl(kubeconfig, "get schedulingoptimizations -o wide");
  BOOST_REQUIRE_MESSAGE(wide.code == 0, wide.output);
  auto wide_header = words(lines(wide.output).at(0));
  BOOST_REQUIRE_GE(wide_header.size(), 7u);
  std::vector<std::string> tail(wide_header.end() - 7, wide_header.end());
  std::vector<std::string> expected_tail{"AGE", "PODS", "SUCCESSFUL", "PODS", "FAILED", "PODS", "SKIPPED"};
  BOOST_TEST(tail == expected_tail, boost::test_tools::per_element());
  auto done = row_named(table.output, "a-opted-out");
  BOOST_REQUIRE_EQUAL(done.size(), 7u);
  BOOST_TEST(done[1] == "Final");
  BOOST_TEST(done[2] == "Successful");
  BOOST_TEST((row_named(got.output, "a-opted-out").at(1) == "Final"));
  auto running = row_named(table.output, "b-running");
  BOOST_REQUIRE_GE(running.size(), 3u);
  BOOST_TEST(running[1] == "Migrating");
  BOOST_TEST(running[2] == "InProgress");
  BOOST_TEST(table.output.find("\nIn progress:\nb-running (Migrating): ") != std::string::npos,
             table.output);
  BOOST_TEST(table.output.find("a-opted-out (") == std::string::npos, table.output);

  auto as_json = kubectl(kubeconfig, "schedopt status -o json");
  BOOST_REQUIRE_MESSAGE(as_json.code == 0, as_json.output);
  auto list = json::parse(as_json.output, nullptr, false);
  BOOST_REQUIRE_MESSAGE(list.is_array() && list.size() == 2u, as_json.output);
  BOOST_TEST(list[0].value("name", "") == "a-opted-out");
  BOOST_TEST(!list[0].contains("progress"));
  BOOST_TEST(list[1].value("name", "") == "b-running");
  BOOST_REQUIRE(list[1].contains("progress"));
  auto& progress = list[1]["progress"];
  auto moving_now = progress.value("inFlight", 0) + progress.value("pending", 0);
  // maxParallelMigrations 2 and two minutes per migration: one or two VMIMs are open.
  BOOST_TEST(moving_now >= 1);
  BOOST_TEST(moving_now <= 2);
  BOOST_TEST(progress.value("migrated", -1) == 0);
  BOOST_TEST(progress.value("skipped", -1) == list[1].value("skipped", -2));
}

BOOST_AUTO_TEST_CASE(kubectl_schedopt_plan_and_explain_agree_on_targets) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "20", "--misplaced", "0.4", "--seed", "41"});
  const auto& kubeconfig = s.sim().kubeconfig();
  auto plan = kubectl(kubeconfig, "schedopt plan --driver csi-topology -o json");
  BOOST_REQUIRE_MESSAGE(plan.code == 0, plan.output);
  auto report = json::parse(plan.output, nullptr, false);
  BOOST_REQUIRE_MESSAGE(report.is_array(), plan.output);
  BOOST_TEST(report.size() == s.truth().size());
  int hyperconverged = 0, moved = 0;
  for (auto& e : report) {
    auto key = e.value("namespace", "") + "/" + e.value("name", "");
    auto verdict = e.value("verdict", "");
    if (verdict == "none" || (verdict == "hyperconverged" && hyperconverged >= 2)
        || (verdict != "hyperconverged" && moved >= 2))
      continue;
    (verdict == "hyperconverged" ? hyperconverged : moved)++;
    BOOST_TEST_CONTEXT("vm " << key) {
      auto why = kubectl(kubeconfig, "schedopt explain " + key + " --driver csi-topology -o json");
      BOOST_REQUIRE_MESSAGE(why.code == 0, why.output);
      auto ex = json::parse(why.output, nullptr, false);
      BOOST_REQUIRE_MESSAGE(ex.is_object(), why.output);
      BOOST_TEST(ex.value("verdict", "") == verdict);
      BOOST_TEST(ex["targetNodes"] == e["targetNodes"]);
      if (verdict == "hyperconverged")
        BOOST_TEST(e["targetNodes"].empty()); // it stays: no target in either
    }
  }
  BOOST_TEST(hyperconverged == 2);
  BOOST_TEST(moved == 2);
  BOOST_TEST(s.schedopt_vmims().size() == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
