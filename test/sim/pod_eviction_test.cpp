// POST .../pods/<name>/eviction judged over HTTP against a running simulator: the codes
// and Status bodies kube-apiserver answers (201, 429 with the budget's cause, 404, 500
// for two budgets, 400), the budget's decrement and disruptedPods entry, dry run, the
// PDB-free path of a Pending pod, KubeVirt's webhook for virt-launcher pods, and the
// audit's record of each decision.
#include <boost/test/unit_test.hpp>

#include "pod_test_support.hpp"

using namespace schedopt::test;

namespace {

/// A namespace with ReplicaSet `app` of `replicas` pods and PDB `app` (`field` =
/// `value`), once the budget's status counts every pod healthy.
std::string workload_with_budget(const sim_process& sim, const std::string& app, int replicas, const std::string& field,
                                 const json& value) {
  auto ns = make_namespace(sim, app);
  BOOST_REQUIRE_EQUAL(create(sim, replicasets_path(ns), replicaset(app, replicas, pod_template(app))).status, 201);
  BOOST_REQUIRE_EQUAL(create(sim, pdbs_path(ns), budget(app, app, field, value)).status, 201);
  BOOST_REQUIRE_MESSAGE(eventually([&] {
                          auto s = pdb_status(sim, ns, app);
                          return s.value("observedGeneration", 0) == 1 && s.value("currentHealthy", 0) == replicas;
                        }),
                        "budget " << app << " never counted " << replicas << " healthy pods: "
                                  << pdb_status(sim, ns, app).dump());
  return ns;
}

/// The audit's record of the last eviction of `pod`.
json eviction_record(const sim_process& sim, const std::string& ns, const std::string& pod) {
  json found;
  for (auto& e : audit(sim).value("evictions", json::array()))
    if (e["namespace"] == ns && e["pod"] == pod)
      found = e;
  return found;
}

} // namespace

BOOST_AUTO_TEST_SUITE(pod_eviction)

BOOST_AUTO_TEST_CASE(a_missing_pod_is_404) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = make_namespace(sim, "ghosts");
  auto reply = evict(sim, ns, "ghost");
  BOOST_TEST(reply.status == 404);
  auto body = reply.json();
  BOOST_TEST(body["kind"] == "Status");
  BOOST_TEST(body["reason"] == "NotFound");
  BOOST_TEST(body["message"] == "pods \"ghost\" not found");
  BOOST_TEST(body["details"]["kind"] == "pods");
  BOOST_TEST(body["details"]["name"] == "ghost");
  BOOST_TEST(body["code"] == 404);
  BOOST_TEST(eviction_record(sim, ns, "ghost").value("code", 0) == 404);
}

BOOST_AUTO_TEST_CASE(a_name_other_than_the_urls_is_400) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = workload_with_budget(sim, "named", 1, "maxUnavailable", 1);
  auto pod = ready_pods(sim, ns, "named").at(0)["metadata"]["name"].get<std::string>();
  json body = {{"apiVersion", "policy/v1"}, {"kind", "Eviction"}, {"metadata", {{"name", "someone-else"}}}};
  auto reply = http_request(sim, "POST", pods_path(ns) + "/" + pod + "/eviction", body.dump());
  BOOST_TEST(reply.status == 400);
  BOOST_TEST(reply.json()["message"] == "name in URL does not match name in Eviction object");
}

BOOST_AUTO_TEST_CASE(an_allowed_eviction_is_201_and_spends_the_budget) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = workload_with_budget(sim, "spend", 2, "maxUnavailable", 1);
  BOOST_REQUIRE_EQUAL(pdb_status(sim, ns, "spend").value("disruptionsAllowed", -1), 1);
  watch_reader watch(sim, pdbs_path(ns) + "?watch=1&fieldSelector=metadata.name%3Dspend");
  auto victim = ready_pods(sim, ns, "spend").at(0);
  auto name = victim["metadata"]["name"].get<std::string>();

  auto reply = evict(sim, ns, name);
  BOOST_TEST(reply.status == 201);
  auto body = reply.json();
  BOOST_TEST(body["kind"] == "Status");
  BOOST_TEST(body["status"] == "Success");
  BOOST_TEST(body["code"] == 201);

  // The eviction wrote the decrement and the disruptedPods entry before anything else.
  BOOST_TEST(watch.wait_for([&](const std::vector<json>& events) {
    for (auto& e : events) {
      auto status = e.value("/object/status"_json_pointer, json::object());
      if (status.value("disruptionsAllowed", -1) == 0 && status.value("disruptedPods", json::object()).contains(name))
        return true;
    }
    return false;
  }));
  // The pod goes gracefully (DisruptionTarget first), then is gone.
  auto after = get_json(sim, pods_path(ns) + "/" + name);
  if (!after.is_null()) {
    BOOST_TEST(terminating(after));
    bool marked = false;
    for (auto& c : after.value("/status/conditions"_json_pointer, json::array()))
      marked = marked || (c["type"] == "DisruptionTarget" && c["reason"] == "EvictionByEvictionAPI");
    BOOST_TEST(marked);
  }
  BOOST_TEST(eventually([&] { return http_request(sim, "GET", pods_path(ns) + "/" + name).status == 404; }));

  auto record = eviction_record(sim, ns, name);
  BOOST_TEST(record.value("code", 0) == 201);
  BOOST_TEST(record.value("pdb", "") == "spend");
  BOOST_TEST(record.value("disruptionsAllowed", -1) == 1);
  BOOST_TEST(record.value("budgetDecremented", false));
  BOOST_TEST(record.value("podReady", false));
  BOOST_TEST(record.value("podUid", "") == victim["metadata"]["uid"].get<std::string>());
  BOOST_TEST(record.value("outcome", "") == "Evicted");
}

BOOST_AUTO_TEST_CASE(a_budget_allowing_nothing_is_429_with_its_cause) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = workload_with_budget(sim, "held", 1, "maxUnavailable", 0);
  auto status = pdb_status(sim, ns, "held");
  BOOST_REQUIRE_EQUAL(status.value("disruptionsAllowed", -1), 0);
  BOOST_REQUIRE_EQUAL(status.value("desiredHealthy", -1), 1);
  auto name = ready_pods(sim, ns, "held").at(0)["metadata"]["name"].get<std::string>();

  auto reply = evict(sim, ns, name);
  BOOST_TEST(reply.status == 429);
  auto body = reply.json();
  BOOST_TEST(body["reason"] == "TooManyRequests");
  BOOST_TEST(body["message"] == "Cannot evict pod as it would violate the pod's disruption budget.");
  BOOST_TEST(body["code"] == 429);
  auto causes = body.value("/details/causes"_json_pointer, json::array());
  BOOST_REQUIRE_EQUAL(causes.size(), 1u);
  BOOST_TEST(causes[0]["reason"] == "DisruptionBudget");
  BOOST_TEST(causes[0]["message"] == "The disruption budget held needs 1 healthy pods and has 1 currently");
  BOOST_TEST(!body["details"].contains("retryAfterSeconds"));
  BOOST_TEST(!reply.has_header("Retry-After"));

  auto pod = get_json(sim, pods_path(ns) + "/" + name);
  BOOST_TEST(!terminating(pod));
  auto record = eviction_record(sim, ns, name);
  BOOST_TEST(record.value("code", 0) == 429);
  BOOST_TEST(record.value("disruptionsAllowed", -1) == 0);
  BOOST_TEST(!record.value("budgetDecremented", true));
  BOOST_TEST(record.value("outcome", "") == "DisruptionBudget");
}

BOOST_AUTO_TEST_CASE(a_pod_under_two_budgets_is_500) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = workload_with_budget(sim, "twice", 2, "maxUnavailable", 1);
  BOOST_REQUIRE_EQUAL(create(sim, pdbs_path(ns), budget("twice-quorum", "twice", "minAvailable", 1)).status, 201);
  auto name = ready_pods(sim, ns, "twice").at(0)["metadata"]["name"].get<std::string>();
  auto reply = evict(sim, ns, name);
  BOOST_TEST(reply.status == 500);
  auto body = reply.json();
  BOOST_TEST(body["status"] == "Failure");
  BOOST_TEST(body["message"] == "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.");
  BOOST_TEST(body["code"] == 500);
  BOOST_TEST(!body.contains("reason"));
  BOOST_TEST(!terminating(get_json(sim, pods_path(ns) + "/" + name)));
  BOOST_TEST(eviction_record(sim, ns, name).value("outcome", "") == "MultipleBudgets");
}

BOOST_AUTO_TEST_CASE(a_dry_run_decides_and_changes_nothing) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = workload_with_budget(sim, "rehearse", 2, "maxUnavailable", 1);
  auto name = ready_pods(sim, ns, "rehearse").at(0)["metadata"]["name"].get<std::string>();
  auto by_query = evict(sim, ns, name, "?dryRun=All");
  BOOST_TEST(by_query.status == 201);
  auto by_options = evict(sim, ns, name, {}, {{"dryRun", {"All"}}});
  BOOST_TEST(by_options.status == 201);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  BOOST_TEST(!terminating(get_json(sim, pods_path(ns) + "/" + name)));
  auto status = pdb_status(sim, ns, "rehearse");
  BOOST_TEST(status.value("disruptionsAllowed", -1) == 1);
  BOOST_TEST(!status.contains("disruptedPods"));
  auto record = eviction_record(sim, ns, name);
  BOOST_TEST(record.value("dryRun", false));
  BOOST_TEST(record.value("budgetDecremented", false)); // it would have been
}

BOOST_AUTO_TEST_CASE(a_pending_pod_goes_without_a_budget_check) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = make_namespace(sim, "nowhere");
  auto tmpl = pod_template("nowhere", {{"nodeSelector", {{"disk", "none-has-this"}}}});
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", tmpl["metadata"]}, {"spec", tmpl["spec"]}};
  pod["metadata"]["name"] = "stuck";
  BOOST_REQUIRE_EQUAL(create(sim, pods_path(ns), pod).status, 201);
  BOOST_REQUIRE_EQUAL(create(sim, pdbs_path(ns), budget("nowhere", "nowhere", "minAvailable", 1)).status, 201);
  BOOST_REQUIRE(eventually([&] {
    auto s = pdb_status(sim, ns, "nowhere");
    return s.value("observedGeneration", 0) == 1 && s.value("disruptionsAllowed", -1) == 0;
  }));
  // The scheduler said why it stays Pending.
  BOOST_TEST(eventually([&] {
    for (auto& c : get_json(sim, pods_path(ns) + "/stuck").value("/status/conditions"_json_pointer, json::array()))
      if (c["type"] == "PodScheduled" && c["status"] == "False" && c["reason"] == "Unschedulable")
        return c["message"].get<std::string>().find("didn't match Pod's node affinity/selector") != std::string::npos;
    return false;
  }));
  auto reply = evict(sim, ns, "stuck");
  BOOST_TEST(reply.status == 201);
  // Never bound to a node: no grace period.
  BOOST_TEST(http_request(sim, "GET", pods_path(ns) + "/stuck").status == 404);
  auto record = eviction_record(sim, ns, "stuck");
  BOOST_TEST(record.value("pdb", "x") == "");
  BOOST_TEST(record["disruptionsAllowed"].is_null());
}

BOOST_AUTO_TEST_CASE(a_virt_launcher_pod_is_answered_by_kubevirts_webhook) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto vmis = get_json(sim, "/apis/kubevirt.io/v1/virtualmachineinstances").value("items", json::array());
  BOOST_REQUIRE(!vmis.empty());
  json vmi;
  for (auto& v : vmis)
    for (auto& c : v.value("/status/conditions"_json_pointer, json::array()))
      if (c["type"] == "LiveMigratable" && c["status"] == "True" && vmi.is_null())
        vmi = v;
  BOOST_REQUIRE(!vmi.is_null());
  auto ns = vmi["metadata"]["namespace"].get<std::string>();
  auto vmi_name = vmi["metadata"]["name"].get<std::string>();
  auto node = vmi["status"]["nodeName"].get<std::string>();
  auto pod_name = "virt-launcher-" + vmi_name + "-test1";
  auto tmpl = pod_template("launcher", {{"nodeName", node}});
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", pod_name},
                {"labels", {{"kubevirt.io", "virt-launcher"}, {"kubevirt.io/created-by", vmi["metadata"]["uid"]}}},
                {"annotations", {{"kubevirt.io/domain", vmi_name}}}}},
              {"spec", tmpl["spec"]}};
  BOOST_REQUIRE_EQUAL(create(sim, pods_path(ns), pod).status, 201);
  BOOST_REQUIRE(eventually([&] { return pod_ready(get_json(sim, pods_path(ns) + "/" + pod_name)); }));

  auto reply = evict(sim, ns, pod_name);
  BOOST_TEST(reply.status == 429);
  auto body = reply.json();
  BOOST_TEST(body["message"]
             == "admission webhook \"virt-launcher-eviction-interceptor.kubevirt.io\" denied the request: "
                "Eviction triggered evacuation of VMI \"" + ns + "/" + vmi_name + "\"");
  BOOST_TEST(body["code"] == 429);
  BOOST_TEST(!terminating(get_json(sim, pods_path(ns) + "/" + pod_name)));
  auto marked = get_json(sim, "/apis/kubevirt.io/v1/namespaces/" + ns + "/virtualmachineinstances/" + vmi_name);
  BOOST_TEST(marked.value("/status/evacuationNodeName"_json_pointer, std::string{}) == node);
  BOOST_TEST(eviction_record(sim, ns, pod_name).value("outcome", "") == "Denied");
}

BOOST_AUTO_TEST_CASE(discovery_lists_the_eviction_subresource) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto core = get_json(sim, "/api/v1");
  bool eviction = false, pods = false;
  for (auto& r : core["resources"]) {
    if (r["name"] == "pods/eviction") {
      eviction = r["kind"] == "Eviction" && r["group"] == "policy" && r["version"] == "v1"
                 && r["verbs"] == json::array({"create"});
    }
    if (r["name"] == "pods")
      pods = r["shortNames"] == json::array({"po"});
  }
  BOOST_TEST(eviction);
  BOOST_TEST(pods);
  std::set<std::string> apps;
  auto apps_list = get_json(sim, "/apis/apps/v1"); // named: the range must not dangle
  for (auto& r : apps_list["resources"])
    apps.insert(r["name"].get<std::string>());
  BOOST_TEST(apps.count("statefulsets"));
  BOOST_TEST(apps.count("replicasets"));
  BOOST_TEST(apps.count("statefulsets/status"));
  std::set<std::string> policy;
  auto policy_list = get_json(sim, "/apis/policy/v1");
  for (auto& r : policy_list["resources"])
    policy.insert(r["name"].get<std::string>());
  BOOST_TEST(policy.count("poddisruptionbudgets/status"));
}

BOOST_AUTO_TEST_SUITE_END()
