// The disruption controller's arithmetic, judged over HTTP: each PodDisruptionBudget's
// status from minAvailable / maxUnavailable as integers and percentages (rounded up),
// over controlled and unmanaged pods, recomputed as pods come and go, the DisruptionAllowed
// condition, and failSafe for pods whose controller serves no scale.
#include <boost/test/unit_test.hpp>

#include "pod_test_support.hpp"

using namespace schedopt::test;

namespace {

struct expected_status {
  int expected_pods;
  int desired_healthy;
  int current_healthy;
  int disruptions_allowed;
};

/// ReplicaSet `app` of `replicas` pods under PDB `app` (`field` = `value`); waits for
/// the budget's status to settle on `want`.
void check_budget(const std::string& app, int replicas, const std::string& field, const json& value,
                  expected_status want) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = make_namespace(sim, app);
  BOOST_REQUIRE_EQUAL(create(sim, replicasets_path(ns), replicaset(app, replicas, pod_template(app))).status, 201);
  BOOST_REQUIRE_EQUAL(create(sim, pdbs_path(ns), budget(app, app, field, value)).status, 201);
  json status;
  bool settled = eventually([&] {
    status = pdb_status(sim, ns, app);
    return status.value("observedGeneration", 0) == 1 && status.value("currentHealthy", -1) == want.current_healthy
           && status.value("expectedPods", -1) == want.expected_pods;
  });
  BOOST_TEST_CONTEXT(field << "=" << value.dump() << " over " << replicas << ": " << status.dump()) {
    BOOST_TEST(settled);
    BOOST_TEST(status.value("expectedPods", -1) == want.expected_pods);
    BOOST_TEST(status.value("desiredHealthy", -1) == want.desired_healthy);
    BOOST_TEST(status.value("currentHealthy", -1) == want.current_healthy);
    BOOST_TEST(status.value("disruptionsAllowed", -1) == want.disruptions_allowed);
    auto conditions = status.value("conditions", json::array());
    BOOST_REQUIRE_EQUAL(conditions.size(), 1u);
    BOOST_TEST(conditions[0]["type"] == "DisruptionAllowed");
    BOOST_TEST(conditions[0]["status"] == (want.disruptions_allowed > 0 ? "True" : "False"));
    BOOST_TEST(conditions[0]["reason"] == (want.disruptions_allowed > 0 ? "SufficientPods" : "InsufficientPods"));
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(disruption_budget)

BOOST_AUTO_TEST_CASE(min_available_as_an_integer_counts_the_matching_pods) {
  check_budget("min-int", 3, "minAvailable", 2, {3, 2, 3, 1});
}

BOOST_AUTO_TEST_CASE(min_available_as_a_percentage_rounds_up_over_the_scale) {
  check_budget("min-pct", 3, "minAvailable", "50%", {3, 2, 3, 1});
}

BOOST_AUTO_TEST_CASE(max_unavailable_as_an_integer) {
  check_budget("max-int", 3, "maxUnavailable", 1, {3, 2, 3, 1});
}

BOOST_AUTO_TEST_CASE(max_unavailable_as_a_percentage_rounds_up) {
  // ceil(34% of 3) = 2 unavailable: desired 1.
  check_budget("max-pct", 3, "maxUnavailable", "34%", {3, 1, 3, 2});
}

BOOST_AUTO_TEST_CASE(max_unavailable_zero_allows_nothing) {
  check_budget("max-zero", 2, "maxUnavailable", 0, {2, 2, 2, 0});
}

BOOST_AUTO_TEST_CASE(min_available_above_the_pods_allows_nothing) {
  check_budget("min-high", 2, "minAvailable", 3, {2, 3, 2, 0});
}

BOOST_AUTO_TEST_CASE(the_status_follows_the_scale_and_the_pods) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = make_namespace(sim, "follow");
  BOOST_REQUIRE_EQUAL(create(sim, replicasets_path(ns), replicaset("follow", 2, pod_template("follow"))).status, 201);
  BOOST_REQUIRE_EQUAL(create(sim, pdbs_path(ns), budget("follow", "follow", "maxUnavailable", 1)).status, 201);
  BOOST_REQUIRE(eventually([&] { return pdb_status(sim, ns, "follow").value("disruptionsAllowed", -1) == 1; }));
  auto scaled = http_request(sim, "PATCH", replicasets_path(ns) + "/follow", R"({"spec":{"replicas":4}})",
                             "application/merge-patch+json");
  BOOST_REQUIRE_EQUAL(scaled.status, 200);
  // expectedPods follows the scale at once; currentHealthy as the new pods become Ready.
  BOOST_TEST(eventually([&] {
    auto s = pdb_status(sim, ns, "follow");
    return s.value("expectedPods", -1) == 4 && s.value("desiredHealthy", -1) == 3 && s.value("currentHealthy", -1) == 4
           && s.value("disruptionsAllowed", -1) == 1;
  }));
  // A deleted pod stops counting as soon as it is terminating.
  auto victim = ready_pods(sim, ns, "follow").at(0)["metadata"]["name"].get<std::string>();
  watch_reader watch(sim, pdbs_path(ns) + "?watch=1&fieldSelector=metadata.name%3Dfollow");
  BOOST_REQUIRE_EQUAL(http_request(sim, "DELETE", pods_path(ns) + "/" + victim).status, 200);
  BOOST_TEST(watch.wait_for([](const std::vector<json>& events) {
    for (auto& e : events)
      if (e.value("/object/status/currentHealthy"_json_pointer, -1) == 3
          && e.value("/object/status/disruptionsAllowed"_json_pointer, -1) == 0)
        return true;
    return false;
  }));
  // ... and the replacement brings the budget back.
  BOOST_TEST(eventually([&] { return pdb_status(sim, ns, "follow").value("disruptionsAllowed", -1) == 1; }));
}

BOOST_AUTO_TEST_CASE(unmanaged_pods_count_for_an_integer_min_available) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = make_namespace(sim, "bare");
  for (auto name : {"bare-a", "bare-b"}) {
    auto tmpl = pod_template("bare");
    json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", tmpl["metadata"]}, {"spec", tmpl["spec"]}};
    pod["metadata"]["name"] = name;
    BOOST_REQUIRE_EQUAL(create(sim, pods_path(ns), pod).status, 201);
  }
  BOOST_REQUIRE_EQUAL(create(sim, pdbs_path(ns), budget("bare", "bare", "minAvailable", 1)).status, 201);
  BOOST_TEST(eventually([&] {
    auto s = pdb_status(sim, ns, "bare");
    return s.value("expectedPods", -1) == 2 && s.value("currentHealthy", -1) == 2 && s.value("disruptionsAllowed", -1) == 1;
  }));
}

BOOST_AUTO_TEST_CASE(pods_of_a_controller_without_scale_fail_safe) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = make_namespace(sim, "daemon");
  auto tmpl = pod_template("agent");
  json ds = {{"apiVersion", "apps/v1"},
             {"kind", "DaemonSet"},
             {"metadata", {{"name", "agent"}}},
             {"spec", {{"selector", {{"matchLabels", {{"app", "agent"}}}}}, {"template", tmpl}}}};
  auto made = create(sim, "/apis/apps/v1/namespaces/" + ns + "/daemonsets", ds);
  BOOST_REQUIRE_EQUAL(made.status, 201);
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", tmpl["metadata"]}, {"spec", tmpl["spec"]}};
  pod["metadata"]["name"] = "agent-x1y2z";
  pod["metadata"]["ownerReferences"] = json::array({{{"apiVersion", "apps/v1"},
                                                     {"kind", "DaemonSet"},
                                                     {"name", "agent"},
                                                     {"uid", made.json()["metadata"]["uid"]},
                                                     {"controller", true}}});
  BOOST_REQUIRE_EQUAL(create(sim, pods_path(ns), pod).status, 201);
  BOOST_REQUIRE_EQUAL(create(sim, pdbs_path(ns), budget("agent", "agent", "maxUnavailable", 1)).status, 201);
  json status;
  BOOST_TEST(eventually([&] {
    status = pdb_status(sim, ns, "agent");
    for (auto& c : status.value("conditions", json::array()))
      if (c["reason"] == "SyncFailed")
        return true;
    return false;
  }));
  BOOST_TEST(status.value("disruptionsAllowed", -1) == 0);
  auto condition = status["conditions"][0];
  BOOST_TEST(condition["status"] == "False");
  BOOST_TEST(condition["message"] == "daemonsets.apps does not implement the scale subresource");
  // Never observed: an eviction is told the budget is still being processed.
  BOOST_REQUIRE(eventually([&] { return pod_ready(get_json(sim, pods_path(ns) + "/agent-x1y2z")); }));
  auto reply = evict(sim, ns, "agent-x1y2z");
  BOOST_TEST(reply.status == 429);
  BOOST_TEST(reply.has_header("Retry-After: 10"));
  BOOST_TEST(reply.json().value("/details/causes/0/message"_json_pointer, std::string{})
             == "The disruption budget agent is still being processed by the server.");
}

BOOST_AUTO_TEST_SUITE_END()
