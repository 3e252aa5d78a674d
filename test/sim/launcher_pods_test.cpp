// KubeVirt's virt-launcher pods as pod objects in a cluster that runs pods: one per
// running VMI on its node, told apart by kubevirt.io=virt-launcher; an eviction meets
// KubeVirt's webhook and becomes an evacuation, after which the VMI's new node has the
// new pod and the old one completed; a launcher pod deleted under its VMI fails the VMI.
#include <boost/test/unit_test.hpp>

#include "e2e/ground_truth.hpp"
#include "pod_test_support.hpp"

using namespace schedopt::test;

namespace {

sim_process& launcher_sim() {
  static sim_process sim({"--nodes", "4", "--vmis", "6", "--pods", "4", "--seed", "31", "--migration-duration",
                          "300ms", "--pod-termination-delay", "300ms"});
  return sim;
}

const std::string vmis_path = "/apis/kubevirt.io/v1/virtualmachineinstances";

/// Launcher pods of VMI `ns/name` that have not completed.
std::vector<json> launchers_of(const sim_process& sim, const std::string& ns, const std::string& name) {
  std::vector<json> out;
  auto list = get_json(sim, pods_path(ns) + "?labelSelector=kubevirt.io%3Dvirt-launcher");
  for (auto& p : list.value("items", json::array()))
    if (p.value("/metadata/annotations/kubevirt.io~1domain"_json_pointer, std::string{}) == name
        && p.value("/status/phase"_json_pointer, std::string{}) == "Running")
      out.push_back(p);
  return out;
}

json vmi(const sim_process& sim, const std::string& ns, const std::string& name) {
  return get_json(sim, "/apis/kubevirt.io/v1/namespaces/" + ns + "/virtualmachineinstances/" + name);
}

} // namespace

BOOST_AUTO_TEST_SUITE(launcher_pods)

BOOST_AUTO_TEST_CASE(each_running_vmi_has_one_launcher_pod_on_its_node) {
  auto& sim = launcher_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto vmis = get_json(sim, vmis_path).value("items", json::array());
  BOOST_REQUIRE_EQUAL(vmis.size(), 6u);
  for (auto& v : vmis) {
    auto ns = v["metadata"]["namespace"].get<std::string>();
    auto name = v["metadata"]["name"].get<std::string>();
    auto pods = launchers_of(sim, ns, name);
    BOOST_TEST_CONTEXT(ns << "/" << name) {
      BOOST_REQUIRE_EQUAL(pods.size(), 1u);
      auto& pod = pods[0];
      BOOST_TEST(pod["spec"]["nodeName"] == v["status"]["nodeName"]);
      BOOST_TEST(pod["metadata"]["name"].get<std::string>().rfind("virt-launcher-" + name + "-", 0) == 0);
      BOOST_TEST(pod["metadata"]["labels"]["kubevirt.io/created-by"] == v["metadata"]["uid"]);
      BOOST_TEST(pod["metadata"]["ownerReferences"][0]["kind"] == "VirtualMachineInstance");
      BOOST_TEST(pod_ready(pod));
      BOOST_TEST(!pod["spec"]["volumes"].empty());
    }
  }
  // The scenario's own pods are not launcher pods.
  auto apps = get_json(sim, pods_path("apps-a") + "?labelSelector=kubevirt.io%3Dvirt-launcher");
  BOOST_TEST(apps["items"].empty());
  // The e2e ground truth reads both kinds apart, with their replicas.
  auto truth = schedopt::e2e::pod_ground_truth(sim, "portworx");
  int launchers = 0, workloads = 0, misplaced = 0;
  for (auto& t : truth) {
    BOOST_TEST_CONTEXT(t.key()) {
      BOOST_TEST(t.error.empty());
      BOOST_TEST(t.has_driver_volume);
      BOOST_TEST(!t.best.empty());
      if (t.virt_launcher) {
        ++launchers;
        BOOST_TEST(t.owner_kind == "VirtualMachineInstance");
        continue;
      }
      ++workloads;
      misplaced += t.misplaced ? 1 : 0;
      BOOST_TEST(t.replicas.size() == 1u); // --volumes-per-pod 1
      BOOST_TEST(t.replicas[0].size() == 2u); // --replicas 2
    }
  }
  BOOST_TEST(launchers == 6);
  BOOST_TEST(workloads == 4);
  BOOST_TEST(misplaced == 1); // round(0.3 * 4)
}

BOOST_AUTO_TEST_CASE(an_evicted_launcher_pod_is_an_evacuation_and_its_vmi_moves) {
  auto& sim = launcher_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto vmis = get_json(sim, vmis_path).value("items", json::array());
  json target;
  for (auto& v : vmis)
    for (auto& c : v.value("/status/conditions"_json_pointer, json::array()))
      if (target.is_null() && c["type"] == "LiveMigratable" && c["status"] == "True")
        target = v;
  BOOST_REQUIRE(!target.is_null());
  auto ns = target["metadata"]["namespace"].get<std::string>();
  auto name = target["metadata"]["name"].get<std::string>();
  auto source = target["status"]["nodeName"].get<std::string>();
  auto pod = launchers_of(sim, ns, name).at(0);
  auto pod_name = pod["metadata"]["name"].get<std::string>();
  auto reply = evict(sim, ns, pod_name);
  BOOST_TEST(reply.status == 429);
  BOOST_TEST(reply.json()["message"].get<std::string>().find("Eviction triggered evacuation") != std::string::npos);
  BOOST_REQUIRE(eventually(
    [&] {
      auto now = vmi(sim, ns, name);
      return now.value("/status/nodeName"_json_pointer, source) != source;
    },
    std::chrono::seconds(60)));
  auto moved_to = vmi(sim, ns, name)["status"]["nodeName"].get<std::string>();
  BOOST_TEST(eventually([&] {
    auto pods = launchers_of(sim, ns, name);
    return pods.size() == 1 && pods[0]["spec"]["nodeName"] == moved_to;
  }));
  BOOST_TEST(get_json(sim, pods_path(ns) + "/" + pod_name).value("/status/phase"_json_pointer, std::string{})
             == "Succeeded");
}

BOOST_AUTO_TEST_CASE(a_launcher_pod_deleted_under_its_vmi_fails_the_vmi) {
  auto& sim = launcher_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto vmis = get_json(sim, vmis_path).value("items", json::array());
  auto& last = vmis.back();
  auto ns = last["metadata"]["namespace"].get<std::string>();
  auto name = last["metadata"]["name"].get<std::string>();
  auto pods = launchers_of(sim, ns, name);
  BOOST_REQUIRE_EQUAL(pods.size(), 1u);
  BOOST_REQUIRE_EQUAL(http_request(sim, "DELETE", pods_path(ns) + "/" + pods[0]["metadata"]["name"].get<std::string>()).status,
                      200);
  BOOST_TEST(eventually([&] { return vmi(sim, ns, name).value("/status/phase"_json_pointer, std::string{}) == "Failed"; }));
  BOOST_TEST(launchers_of(sim, ns, name).empty());
}

BOOST_AUTO_TEST_SUITE_END()
