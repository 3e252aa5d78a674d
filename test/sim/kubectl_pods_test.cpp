// Stock kubectl against the pods of a --pods scenario (default, 1.27 and 1.33 when
// installed): `get pods,sts,rs,pdb -A`, and `kubectl drain`, which evicts through
// pods/eviction and retries what a budget refuses; the audit then shows no Ready pod
// evicted while its budget allowed no disruption, and the workloads back on other nodes.
#include <boost/test/unit_test.hpp>

#include "kubectl_runner.hpp"
#include "pod_test_support.hpp"

using namespace schedopt::test;

namespace {

sim_process& kubectl_pods_sim() {
  static sim_process sim({"--nodes", "5", "--vmis", "6", "--pods", "18", "--seed", "17", "--pods-uncontrolled",
                          "0.2", "--pod-start-delay", "300ms", "--pod-recreate-delay", "200ms",
                          "--pod-termination-delay", "300ms"});
  return sim;
}

std::vector<json> all_pods(const sim_process& sim) {
  std::vector<json> out;
  auto list = get_json(sim, "/api/v1/pods");
  for (auto& p : list.value("items", json::array()))
    out.push_back(p);
  return out;
}

/// Every StatefulSet and ReplicaSet has all its replicas Ready.
bool workloads_ready(const sim_process& sim) {
  for (auto path : {"/apis/apps/v1/statefulsets", "/apis/apps/v1/replicasets"}) {
    auto list = get_json(sim, path);
    for (auto& s : list.value("items", json::array()))
      if (s.value("/status/readyReplicas"_json_pointer, 0) != s.value("/spec/replicas"_json_pointer, 1))
        return false;
  }
  return true;
}

} // namespace

BOOST_AUTO_TEST_SUITE(kubectl_pods)

BOOST_AUTO_TEST_CASE(get_lists_pods_statefulsets_replicasets_and_budgets) {
  auto binaries = kubectl_binaries();
  if (binaries.empty()) {
    BOOST_TEST_MESSAGE("SKIPPED: no kubectl on PATH");
    return;
  }
  auto& sim = kubectl_pods_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  for (auto& k : binaries) {
    BOOST_TEST_CONTEXT("kubectl " << k.label) {
      auto got = run_kubectl(k, sim, "get pods,sts,rs,pdb -A");
      BOOST_TEST(got.exit_code == 0, got.output);
      for (auto kind : {"pod/", "statefulset.apps/", "replicaset.apps/", "poddisruptionbudget.policy/"})
        BOOST_TEST(got.output.find(kind) != std::string::npos, kind << " in " << got.output);
      BOOST_TEST(got.output.find("ALLOWED DISRUPTIONS") != std::string::npos);
      auto wide = run_kubectl(k, sim, "get pods -n apps-a -o wide --no-headers");
      BOOST_TEST(wide.exit_code == 0, wide.output);
      BOOST_TEST(wide.output.find("Running") != std::string::npos);
      auto json_out = run_kubectl(k, sim, "get pdb -A -o json");
      auto list = json::parse(json_out.output, nullptr, false);
      BOOST_REQUIRE(list.is_object());
      BOOST_TEST(!list["items"].empty());
      auto resources = run_kubectl(k, sim, "api-resources --api-group=policy");
      BOOST_TEST(resources.output.find("poddisruptionbudgets") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(drain_evicts_through_the_budgets) {
  auto binaries = kubectl_binaries();
  if (binaries.empty()) {
    BOOST_TEST_MESSAGE("SKIPPED: no kubectl on PATH");
    return;
  }
  auto& sim = kubectl_pods_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  int index = 0;
  for (auto& k : binaries) {
    auto node = "node-0" + std::to_string(++index);
    BOOST_TEST_CONTEXT("kubectl " << k.label << " drains " << node) {
      BOOST_REQUIRE(eventually([&] { return workloads_ready(sim); }, std::chrono::seconds(30)));
      auto drained = run_kubectl(k, sim, "drain " + node + " --ignore-daemonsets --force --timeout=80s");
      BOOST_TEST(drained.exit_code == 0, drained.output);
      BOOST_TEST(drained.output.find("drained") != std::string::npos, drained.output);
      // Only the DaemonSet's pods stay on the node.
      for (auto& p : all_pods(sim)) {
        if (p.value("/spec/nodeName"_json_pointer, std::string{}) != node || terminating(p))
          continue;
        auto refs = p.value("/metadata/ownerReferences"_json_pointer, json::array());
        BOOST_TEST((!refs.empty() && refs[0]["kind"] == "DaemonSet"), p["metadata"]["name"] << " left on " << node);
      }
      BOOST_TEST(eventually([&] { return workloads_ready(sim); }, std::chrono::seconds(30)));
      BOOST_TEST(run_kubectl(k, sim, "uncordon " + node).exit_code == 0);
    }
  }
  // The cluster's record: evictions happened, and none of a Ready pod was allowed while
  // its budget allowed no disruption.
  int evicted = 0;
  for (auto& e : audit(sim).value("evictions", json::array())) {
    if (e["code"] == 201)
      ++evicted;
    if (e["code"] == 201 && e["podReady"] == true && !e["disruptionsAllowed"].is_null())
      BOOST_TEST(e["disruptionsAllowed"].get<int>() > 0, e.dump());
    if (e["code"] == 429 && e["outcome"] == "DisruptionBudget")
      BOOST_TEST(e["disruptionsAllowed"] == 0);
  }
  BOOST_TEST(evicted > 0);
}

BOOST_AUTO_TEST_SUITE_END()
