// `schedopt-sim attach` on the real control plane, and schedopt against it: the world is
// created through kube-apiserver (CRDs by server-side apply, nodes that kwok makes Ready),
// and a misplaced fleet converges exactly, judged by the ground truth read from
// kube-apiserver's objects and by kube-apiserver's audit log.
#include <boost/test/unit_test.hpp>

#include <map>
#include <thread>

#include "e2e/child_process.hpp"
#include "e2e/ground_truth.hpp"
#include "realcp/attached_cluster.hpp"

using namespace schedopt::e2e;
using namespace schedopt::realcp;

namespace {

std::string crd_field_manager(const json& crd) {
  for (auto& m : crd.value("/metadata/managedFields"_json_pointer, json::array()))
    if (m.value("operation", "") == "Apply")
      return m.value("manager", "");
  return "";
}

} // namespace

BOOST_AUTO_TEST_SUITE(attach)

BOOST_AUTO_TEST_CASE(puts_the_world_into_kube_apiserver) {
  attached_cluster cluster({"--nodes", "4", "--vmis", "8", "--seed", "3", "--driver", "portworx"});
  const auto& sim = cluster.sim();
  // KubeVirt's CRDs went in by server-side apply (their size rules out client-side apply).
  auto vmi_crd = get(sim, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/virtualmachineinstances.kubevirt.io");
  BOOST_TEST(crd_field_manager(vmi_crd) == "schedopt-sim");
  BOOST_TEST(items(sim, "/apis/kubevirt.io/v1/virtualmachineinstances").size() == 8u);
  BOOST_TEST(items(sim, "/api/v1/nodes").size() == 4u);
  BOOST_TEST(cluster.nodes_ready(std::chrono::seconds(60)));
  // The VMIs kept the status the scenario gave them (written through /status).
  for (auto& vmi : items(sim, "/apis/kubevirt.io/v1/virtualmachineinstances"))
    BOOST_TEST(vmi.value("/status/phase"_json_pointer, std::string()) == "Running");
  // Every VMI's claims and volumes went in, whatever the server's controllers wrote first.
  for (auto& t : ground_truth(sim, "portworx"))
    BOOST_TEST(t.error.empty(), t.key() << ": " << t.error);
  auto kubevirt = get(sim, "/apis/kubevirt.io/v1/namespaces/kubevirt/kubevirts/kubevirt");
  BOOST_TEST(kubevirt.value("/status/phase"_json_pointer, std::string()) == "Deployed");
}

BOOST_AUTO_TEST_CASE(a_misplaced_fleet_converges_exactly) {
  attached_cluster cluster({"--nodes", "6", "--vmis", "30", "--misplaced", "0.4", "--seed", "11",
                            "--migration-duration", "300ms", "--parallel-migrations-per-cluster", "10",
                            "--kubevirt-version", "1.6", "--driver", "portworx"});
  const auto& sim = cluster.sim();
  BOOST_REQUIRE(cluster.nodes_ready(std::chrono::seconds(60)));
  auto before = ground_truth(sim, "portworx");
  auto expected = migratable_candidates(before);
  BOOST_REQUIRE_MESSAGE(expected.size() >= 5, "scenario has too few candidates to test");
  std::size_t skipped = 0;
  for (auto& t : before)
    if (!t.error.empty() || (t.misplaced && (!t.live_migratable || t.targets.empty())))
      ++skipped;

  auto controller = cluster.start_controller();
  cluster.create_request("converge");
  auto r = cluster.wait_final("converge", *controller);

  BOOST_TEST(r.value("/status/status"_json_pointer, std::string()) == (skipped ? "PartialSuccess" : "Successful"));
  auto vm = r.value("/status/vmHyperconvergence"_json_pointer, json::object());
  BOOST_TEST(vm.value("successful", 0LL) == (long long)expected.size());
  BOOST_TEST(vm.value("failed", 0LL) == 0);
  BOOST_TEST(vm.value("skipped", 0LL) == (long long)skipped);
  auto after = ground_truth(sim, "portworx");
  for (auto& t : after)
    BOOST_TEST_CONTEXT("vm " << t.key() << " on " << t.node) {
      BOOST_TEST(!(t.misplaced && t.live_migratable && !t.targets.empty() && t.error.empty()));
    }

  // kube-apiserver's record: one VMIM created per migrated VM, each answered 201, and
  // the request's status written through /status.
  std::map<std::string, int> vmim_creates;
  int status_writes = 0;
  for (auto& e : cluster.audit()) {
    auto ref = e.value("objectRef", json::object());
    if (e.value("verb", "") == "create" && ref.value("resource", "") == "virtualmachineinstancemigrations"
        && e.value("/responseStatus/code"_json_pointer, 0) == 201)
      ++vmim_creates[ref.value("namespace", "") + "/"
                     + e.value("/requestObject/spec/vmiName"_json_pointer, std::string())];
    if (ref.value("resource", "") == "schedulingoptimizations" && ref.value("subresource", "") == "status"
        && (e.value("verb", "") == "patch" || e.value("verb", "") == "update"))
      ++status_writes;
  }
  BOOST_TEST(vmim_creates.size() == expected.size());
  for (auto& t : expected)
    BOOST_TEST(vmim_creates[t.key()] == 1, t.key());
  BOOST_TEST(status_writes >= 1);
}

// attach and a control plane it did not start make a whole cluster: its kwok holds the
// nodes Ready past the real node lifecycle controller's grace period, and a fleet
// converges on it.
BOOST_AUTO_TEST_CASE(on_a_bare_control_plane_its_kwok_holds_the_nodes_ready) {
  control_plane_options bare;
  bare.kwok = false;
  bare.node_monitor_grace_period = "20s";
  attached_cluster cluster({"--nodes", "4", "--vmis", "12", "--misplaced", "0.5", "--seed", "5",
                            "--migration-duration", "300ms", "--driver", "portworx"},
                           bare);
  const auto& sim = cluster.sim();
  BOOST_REQUIRE(cluster.nodes_ready(std::chrono::seconds(60)));
  std::this_thread::sleep_for(std::chrono::seconds(30)); // past the grace period
  BOOST_TEST(cluster.nodes_ready(std::chrono::seconds(1)));
  for (auto& n : items(sim, "/api/v1/nodes"))
    for (auto& t : n.value("/spec/taints"_json_pointer, json::array()))
      BOOST_TEST(t.value("key", "") != "node.kubernetes.io/unreachable", n.dump());

  auto expected = migratable_candidates(ground_truth(sim, "portworx"));
  BOOST_REQUIRE(!expected.empty());
  auto controller = cluster.start_controller();
  cluster.create_request("bare");
  auto r = cluster.wait_final("bare", *controller);
  BOOST_TEST(r.value("/status/vmHyperconvergence/successful"_json_pointer, 0LL) == (long long)expected.size());
  BOOST_TEST(r.value("/status/vmHyperconvergence/failed"_json_pointer, -1LL) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
