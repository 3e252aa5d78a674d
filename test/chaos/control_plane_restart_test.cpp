// The real control plane failing under a run (a control plane of its own whatever
// SCHEDOPT_E2E_CLUSTER says): kube-apiserver killed (SIGKILL) and etcd killed mid-run, each started again by the
// harness a second later as the kubelet restarts static pods. The request still ends
// exact, judged by kube-apiserver's objects and its audit log: every migratable
// misplaced VM moved, none migrated twice, no VMIM create answered 201 twice for a VM.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <map>

#include "e2e/child_process.hpp"
#include "e2e/ground_truth.hpp"
#include "realcp/attached_cluster.hpp"

using namespace schedopt::e2e;
using namespace schedopt::realcp;

namespace {

pid_t component_pid(const control_plane& cp, const std::string& name) {
  std::ifstream in(cp.value("PIDS") + "/" + name);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

void survives_a_kill_of(const std::string& component) {
  attached_cluster cluster({"--nodes", "6", "--vmis", "30", "--misplaced", "0.4", "--seed", "17",
                            "--migration-duration", "1s", "--parallel-migrations-per-cluster", "3",
                            "--kubevirt-version", "1.6", "--driver", "portworx"});
  const auto& sim = cluster.sim();
  BOOST_REQUIRE(cluster.nodes_ready(std::chrono::seconds(60)));
  auto expected = migratable_candidates(ground_truth(sim, "portworx"));
  BOOST_REQUIRE_MESSAGE(expected.size() >= 5, "scenario has too few candidates to test");

  auto controller = cluster.start_controller();
  cluster.create_request("restart");
  // Mid-run: some migrations done, more to go (three at a time, a second or more each).
  BOOST_REQUIRE(eventually([&] { return items(sim, vmims_path + "?labelSelector=" + managed_by_selector).size() >= 3; },
                           std::chrono::seconds(60), std::chrono::milliseconds(100)));
  auto victim = component_pid(cluster.plane(), component);
  BOOST_REQUIRE(victim > 0);
  BOOST_REQUIRE(kill(victim, SIGKILL) == 0);
  BOOST_TEST_MESSAGE("killed " << component << " (pid " << victim << ")");

  auto r = cluster.wait_final("restart", *controller, std::chrono::seconds(240));
  BOOST_TEST(component_pid(cluster.plane(), component) != victim); // it was started again

  auto vm = r.value("/status/vmHyperconvergence"_json_pointer, json::object());
  BOOST_TEST(vm.value("successful", 0LL) == (long long)expected.size());
  BOOST_TEST(vm.value("failed", 0LL) == 0);
  for (auto& t : ground_truth(sim, "portworx"))
    BOOST_TEST_CONTEXT("vm " << t.key() << " on " << t.node) {
      BOOST_TEST(!(t.misplaced && t.live_migratable && !t.targets.empty() && t.error.empty()));
    }
  // The objects: one schedopt VMIM per migrated VM. The audit: no VM's create answered
  // 201 twice (a create whose answer the kill lost is retried and finds its VMIM).
  std::map<std::string, int> vmims, created;
  for (auto& m : items(sim, vmims_path + "?labelSelector=" + managed_by_selector))
    ++vmims[m["metadata"]["namespace"].get<std::string>() + "/" + m["spec"]["vmiName"].get<std::string>()];
  for (auto& e : cluster.audit()) {
    auto ref = e.value("objectRef", json::object());
    if (e.value("verb", "") == "create" && ref.value("resource", "") == "virtualmachineinstancemigrations"
        && e.value("/responseStatus/code"_json_pointer, 0) == 201)
      ++created[ref.value("namespace", "") + "/" + e.value("/requestObject/spec/vmiName"_json_pointer, std::string())];
  }
  BOOST_TEST(vmims.size() == expected.size());
  for (auto& t : expected) {
    BOOST_TEST(vmims[t.key()] == 1, t.key());
    BOOST_TEST(created[t.key()] <= 1, t.key());
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(chaos)

BOOST_AUTO_TEST_CASE(kube_apiserver_killed_mid_run) { survives_a_kill_of("kube-apiserver"); }

BOOST_AUTO_TEST_CASE(etcd_killed_mid_run) { survives_a_kill_of("etcd"); }

BOOST_AUTO_TEST_SUITE_END()
