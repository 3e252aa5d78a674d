// The StatefulSet and ReplicaSet controllers, judged over HTTP and by the audit's pod
// records: a StatefulSet pod comes back under its name with a new uid once the old one
// is gone, in ordinal order; a ReplicaSet's replacement gets a new name while the old pod
// is still terminating; both through Pending, bound, Running and Ready.
#include <boost/test/unit_test.hpp>

#include "pod_test_support.hpp"

using namespace schedopt::test;

namespace {

json statefulset(const std::string& name, int replicas, const json& tmpl, const json& claims = json::array()) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "StatefulSet"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"replicas", replicas},
            {"serviceName", name},
            {"selector", {{"matchLabels", tmpl["metadata"]["labels"]}}},
            {"template", tmpl},
            {"volumeClaimTemplates", claims}}}};
}

/// The audit's pod records of namespace `ns`, in order.
std::vector<json> pod_records(const sim_process& sim, const std::string& ns) {
  std::vector<json> out;
  for (auto& r : audit(sim).value("pods", json::array()))
    if (r["namespace"] == ns)
      out.push_back(r);
  return out;
}

/// Index of the first record with `event` for the pod with `uid`, -1 when none.
long index_of(const std::vector<json>& records, const std::string& event, const std::string& uid) {
  for (std::size_t i = 0; i < records.size(); ++i)
    if (records[i]["event"] == event && records[i]["uid"] == uid)
      return static_cast<long>(i);
  return -1;
}

bool owned_by(const json& pod, const std::string& kind, const json& owner) {
  auto refs = pod.value("/metadata/ownerReferences"_json_pointer, json::array());
  return refs.size() == 1 && refs[0]["kind"] == kind && refs[0]["uid"] == owner["metadata"]["uid"]
         && refs[0]["controller"] == true && refs[0]["name"] == owner["metadata"]["name"];
}

} // namespace

BOOST_AUTO_TEST_SUITE(workload_controllers)

BOOST_AUTO_TEST_CASE(a_statefulset_pod_comes_back_under_its_name_with_a_new_uid) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = make_namespace(sim, "sts");
  auto made = create(sim, statefulsets_path(ns), statefulset("db", 2, pod_template("db")));
  BOOST_REQUIRE_EQUAL(made.status, 201);
  auto set = made.json();
  BOOST_REQUIRE(eventually([&] { return ready_pods(sim, ns, "db").size() == 2; }));
  auto first = get_json(sim, pods_path(ns) + "/db-0");
  auto second = get_json(sim, pods_path(ns) + "/db-1");
  BOOST_TEST(owned_by(first, "StatefulSet", set));
  BOOST_TEST(second.value("/metadata/labels/statefulset.kubernetes.io~1pod-name"_json_pointer, std::string{}) == "db-1");
  BOOST_TEST(second.value("/metadata/labels/apps.kubernetes.io~1pod-index"_json_pointer, std::string{}) == "1");
  BOOST_TEST(second.value("/spec/hostname"_json_pointer, std::string{}) == "db-1");
  BOOST_TEST(second.value("/spec/subdomain"_json_pointer, std::string{}) == "db");
  BOOST_TEST(!second.value("/spec/nodeName"_json_pointer, std::string{}).empty());
  BOOST_TEST(second.value("/status/phase"_json_pointer, std::string{}) == "Running");

  // OrderedReady: db-1 was created only once db-0 was Ready.
  auto records = pod_records(sim, ns);
  auto zero_ready = index_of(records, "ready", first["metadata"]["uid"]);
  auto one_created = index_of(records, "created", second["metadata"]["uid"]);
  BOOST_TEST(zero_ready >= 0);
  BOOST_TEST(one_created > zero_ready);

  auto old_uid = second["metadata"]["uid"].get<std::string>();
  BOOST_REQUIRE_EQUAL(evict(sim, ns, "db-1").status, 201);
  json replacement;
  BOOST_REQUIRE(eventually([&] {
    replacement = get_json(sim, pods_path(ns) + "/db-1");
    return !replacement.is_null() && replacement["metadata"]["uid"] != old_uid && pod_ready(replacement);
  }));
  BOOST_TEST(owned_by(replacement, "StatefulSet", set));
  auto new_uid = replacement["metadata"]["uid"].get<std::string>();
  records = pod_records(sim, ns);
  auto deleted = index_of(records, "deleted", old_uid);
  auto created = index_of(records, "created", new_uid);
  auto scheduled = index_of(records, "scheduled", new_uid);
  auto ready = index_of(records, "ready", new_uid);
  BOOST_TEST(deleted >= 0);
  BOOST_TEST(created > deleted); // the name is free only once the old pod is gone
  BOOST_TEST(scheduled > created);
  BOOST_TEST(ready > scheduled);
  BOOST_TEST(records.at(static_cast<std::size_t>(created))["by"] == "statefulset-controller");
  BOOST_TEST(records.at(static_cast<std::size_t>(ready))["by"] == "kubelet");
  BOOST_TEST(eventually([&] {
    auto s = get_json(sim, statefulsets_path(ns) + "/db").value("status", json::object());
    return s.value("readyReplicas", 0) == 2 && s.value("replicas", 0) == 2 && s.value("observedGeneration", 0) == 1;
  }));
}

BOOST_AUTO_TEST_CASE(a_replicaset_pod_is_replaced_under_a_new_name_while_the_old_terminates) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = make_namespace(sim, "rs");
  auto made = create(sim, replicasets_path(ns), replicaset("web", 1, pod_template("web")));
  BOOST_REQUIRE_EQUAL(made.status, 201);
  auto set = made.json();
  BOOST_REQUIRE(eventually([&] { return ready_pods(sim, ns, "web").size() == 1; }));
  auto old = ready_pods(sim, ns, "web").at(0);
  auto old_name = old["metadata"]["name"].get<std::string>();
  auto old_uid = old["metadata"]["uid"].get<std::string>();
  BOOST_TEST(old_name.rfind("web-", 0) == 0);
  BOOST_TEST(old_name.size() == std::string("web-").size() + 5);
  BOOST_TEST(owned_by(old, "ReplicaSet", set));

  BOOST_REQUIRE_EQUAL(evict(sim, ns, old_name).status, 201);
  json replacement;
  BOOST_REQUIRE(eventually([&] {
    auto ready = ready_pods(sim, ns, "web");
    if (ready.size() != 1 || ready[0]["metadata"]["uid"] == old_uid)
      return false;
    replacement = ready[0];
    return true;
  }));
  BOOST_TEST(replacement["metadata"]["name"] != old_name);
  BOOST_TEST(replacement["metadata"]["name"].get<std::string>().rfind("web-", 0) == 0);
  BOOST_TEST(owned_by(replacement, "ReplicaSet", set));
  BOOST_TEST(replacement.value("/spec/schedulerName"_json_pointer, std::string{}) == "default-scheduler");
  BOOST_TEST(eventually([&] { return http_request(sim, "GET", pods_path(ns) + "/" + old_name).status == 404; }));
  auto records = pod_records(sim, ns);
  auto terminating_at = index_of(records, "terminating", old_uid);
  auto created = index_of(records, "created", replacement["metadata"]["uid"]);
  auto deleted = index_of(records, "deleted", old_uid);
  BOOST_TEST(terminating_at >= 0);
  BOOST_TEST(created > terminating_at);
  BOOST_TEST(created < deleted); // FilterActivePods: a terminating pod no longer counts
  BOOST_TEST(records.at(static_cast<std::size_t>(created))["by"] == "replicaset-controller");
}

BOOST_AUTO_TEST_CASE(a_replicaset_scaled_down_deletes_its_excess) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = make_namespace(sim, "shrink");
  BOOST_REQUIRE_EQUAL(create(sim, replicasets_path(ns), replicaset("shrink", 3, pod_template("shrink"))).status, 201);
  BOOST_REQUIRE(eventually([&] { return ready_pods(sim, ns, "shrink").size() == 3; }));
  BOOST_REQUIRE_EQUAL(http_request(sim, "PATCH", replicasets_path(ns) + "/shrink", R"({"spec":{"replicas":1}})",
                                   "application/merge-patch+json")
                        .status,
                      200);
  BOOST_TEST(eventually([&] { return pods_of(sim, ns, "shrink").size() == 1; }));
  BOOST_TEST(eventually([&] {
    auto s = get_json(sim, replicasets_path(ns) + "/shrink").value("status", json::object());
    return s.value("replicas", 0) == 1 && s.value("readyReplicas", 0) == 1 && s.value("observedGeneration", 0) == 2;
  }));
}

BOOST_AUTO_TEST_CASE(a_claim_template_without_a_volume_leaves_the_pod_pending) {
  auto& sim = pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = make_namespace(sim, "claims");
  json claims = json::array({{{"metadata", {{"name", "data"}}},
                              {"spec",
                               {{"accessModes", {"ReadWriteOnce"}},
                                {"storageClassName", "px-csi-db"},
                                {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}});
  BOOST_REQUIRE_EQUAL(create(sim, statefulsets_path(ns), statefulset("vol", 1, pod_template("vol"), claims)).status,
                      201);
  // The controller makes the claim; with no provisioner in the simulator it stays
  // unbound, and the scheduler says so.
  BOOST_TEST(eventually([&] {
    auto pvc = get_json(sim, "/api/v1/namespaces/" + ns + "/persistentvolumeclaims/data-vol-0");
    return pvc.is_object() && pvc.value("/status/phase"_json_pointer, std::string{}) == "Pending";
  }));
  BOOST_TEST(eventually([&] {
    auto pod = get_json(sim, pods_path(ns) + "/vol-0");
    if (!pod.is_object())
      return false;
    auto volumes = pod.value("/spec/volumes"_json_pointer, json::array());
    bool claimed = !volumes.empty() && volumes[0].value("/persistentVolumeClaim/claimName"_json_pointer, std::string{}) == "data-vol-0";
    for (auto& c : pod.value("/status/conditions"_json_pointer, json::array()))
      if (c["type"] == "PodScheduled" && c["reason"] == "Unschedulable")
        return claimed && c["message"] == "0/4 nodes are available: pod has unbound immediate PersistentVolumeClaims.";
    return false;
  }));
}

BOOST_AUTO_TEST_SUITE_END()
