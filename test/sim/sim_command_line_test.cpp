// schedopt-sim's command line: attach's flags and refusals, and scenario flags that
// cannot apply, refused with a message rather than ignored.
#include <boost/test/unit_test.hpp>

#include "sim/sim_options.hpp"

using namespace schedopt::sim;

namespace {

std::string refusal(const std::vector<std::string>& args) {
  auto cmd = parse_sim_command_line(args);
  return cmd ? std::string() : cmd.err().message;
}

} // namespace

BOOST_AUTO_TEST_SUITE(sim_command_line)

BOOST_AUTO_TEST_CASE(attach_takes_a_kubeconfig_kwok_and_the_scenario) {
  auto cmd = parse_sim_command_line({"attach", "--kubeconfig", "/k", "--kwok", "/cache", "--vmis", "12", "--driver",
                                     "longhorn", "--sdk-endpoint-out", "/sdk", "--failover-after", "2s"});
  BOOST_REQUIRE(cmd);
  BOOST_TEST((cmd->what == sim_command::kind::attach));
  BOOST_TEST(cmd->attach_kubeconfig == "/k");
  BOOST_TEST(cmd->kwok_dir == "/cache");
  BOOST_TEST(cmd->serve.scenario.vmis == 12);
  BOOST_TEST(cmd->serve.scenario.driver == "longhorn");
  BOOST_TEST(cmd->serve.failover_after.count() == 2000);
  auto help = parse_sim_command_line({"attach", "--help"});
  BOOST_REQUIRE(help);
  BOOST_TEST((help->what == sim_command::kind::attach_help));
  BOOST_TEST(attach_usage().find("--kwok DIR") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(attach_refuses_what_it_cannot_do_and_says_why) {
  BOOST_TEST(refusal({"attach", "--vmis", "3"}).find("--kubeconfig PATH is required") != std::string::npos);
  for (auto flag : {"--listen", "--token", "--watch-history"}) {
    std::string value = std::string(flag) == "--listen" ? "127.0.0.1:0" : std::string(flag) == "--watch-history" ? "50" : "x";
    auto message = refusal({"attach", "--kubeconfig", "/k", flag, value});
    BOOST_TEST(message.find(std::string(flag) + " does not apply to attach") != std::string::npos, message);
  }
  // Faults are the fault proxy's: they need the kubeconfig that names it.
  auto message = refusal({"attach", "--kubeconfig", "/k", "--fault-5xx-rate", "0.1"});
  BOOST_TEST(message.find("--fault-5xx-rate needs --kubeconfig-out PATH") != std::string::npos, message);
  BOOST_TEST(refusal({"attach", "--kubeconfig", "/k", "--kubeconfig-out", "/p", "--fault-5xx-rate", "0.1",
                      "--partition-user-agent", "schedopt", "--partition-for", "5s"}) == "");
  BOOST_TEST(refusal({"attach", "--kubeconfig", "/k", "--kubeconfig-out", "/p", "--partition-for", "5s"})
               .find("need --partition-user-agent") != std::string::npos);
  BOOST_TEST(refusal({"attach", "--kubeconfig", "/k", "--pods", "10", "--pods-misplaced", "0.3"}) == "");
  for (auto flag : {"--pod-start-delay", "--pod-recreate-delay"}) {
    auto message = refusal({"attach", "--kubeconfig", "/k", "--pods", "10", flag, "1s"});
    BOOST_TEST(message.find(std::string(flag) + " does not apply to attach") != std::string::npos, message);
  }
  BOOST_TEST(refusal({"attach", "--kubeconfig", "/k", "--drain-node", "node-01"}) == "");
  // A slow termination is kwok's per-pod delay; without the flag, none.
  auto slow = parse_sim_command_line({"attach", "--kubeconfig", "/k", "--pods", "10", "--pod-termination-delay", "4s"});
  BOOST_REQUIRE(slow);
  BOOST_TEST(slow->serve.scenario.pod_termination_delay.count() == 4000);
  auto fast = parse_sim_command_line({"attach", "--kubeconfig", "/k", "--pods", "10"});
  BOOST_REQUIRE(fast);
  BOOST_TEST(fast->serve.scenario.pod_termination_delay.count() == 0);
  // The CRDs it installs may be the caller's (a lax SchedulingOptimization CRD, say).
  BOOST_TEST(refusal({"attach", "--kubeconfig", "/k", "--crd-dir", "/crds"}) == "");
  BOOST_TEST(refusal({"attach", "--kubeconfig", "/k", "--drain-after", "3s"}).find("--drain-after needs --drain-node")
             != std::string::npos);
}

BOOST_AUTO_TEST_CASE(serve_refuses_attachs_flags) {
  BOOST_TEST(refusal({"serve", "--kubeconfig-out", "/k", "--kubeconfig", "/x"}).find("is attach's") != std::string::npos);
  BOOST_TEST(refusal({"serve", "--kubeconfig-out", "/k", "--kwok", "/x"}).find("--kwok is attach's") != std::string::npos);
}

// With csi-topology a pod runs only on its volumes' replicas: --pods-misplaced could not
// misplace any, and is refused rather than silently doing nothing.
BOOST_AUTO_TEST_CASE(pods_misplaced_is_refused_with_csi_topology) {
  auto message = refusal({"serve", "--kubeconfig-out", "/k", "--driver", "csi-topology", "--pods", "10",
                          "--pods-misplaced", "0.5"});
  BOOST_TEST(message.find("--pods-misplaced does not apply to --driver csi-topology") != std::string::npos, message);
  BOOST_TEST(refusal({"serve", "--kubeconfig-out", "/k", "--driver", "portworx", "--pods", "10", "--pods-misplaced",
                      "0.5"})
             == "");
  BOOST_TEST(refusal({"serve", "--kubeconfig-out", "/k", "--driver", "csi-topology", "--pods", "10"}) == "");
}

BOOST_AUTO_TEST_SUITE_END()
