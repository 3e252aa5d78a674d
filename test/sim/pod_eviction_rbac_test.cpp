// pods/eviction under --authorization rbac: a ServiceAccount needs `create` on
// `pods/eviction` (the subresource, not pods) in the pod's namespace; without it the
// API server's 403 names the subresource; with it the eviction is decided and audited
// under the account's user.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>

#include "pod_test_support.hpp"
#include "temp_dir.hpp"

using namespace schedopt::test;

namespace {

const std::string& account_dir() {
  static temp_dir dir("schedopt-sim-evictor");
  return dir.path;
}

sim_process& rbac_pod_sim() {
  static sim_process sim({"--nodes", "3", "--vmis", "2", "--seed", "5", "--authorization", "rbac",
                          "--service-account", "ops/evictor", "--service-account-dir", account_dir(),
                          "--pod-start-delay", "200ms"});
  return sim;
}

std::string token() {
  std::ifstream in(account_dir() + "/token");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

BOOST_AUTO_TEST_SUITE(pod_eviction_rbac)

BOOST_AUTO_TEST_CASE(eviction_needs_create_on_the_subresource) {
  auto& sim = rbac_pod_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = make_namespace(sim, "guarded");
  BOOST_REQUIRE_EQUAL(create(sim, replicasets_path(ns), replicaset("guarded", 1, pod_template("guarded"))).status, 201);
  BOOST_REQUIRE(eventually([&] { return ready_pods(sim, ns, "guarded").size() == 1; }));
  auto pod = ready_pods(sim, ns, "guarded").at(0)["metadata"]["name"].get<std::string>();
  json eviction = {{"apiVersion", "policy/v1"}, {"kind", "Eviction"}, {"metadata", {{"name", pod}, {"namespace", ns}}}};
  auto path = pods_path(ns) + "/" + pod + "/eviction";

  auto denied = http_request(sim, "POST", path, eviction.dump(), "application/json", token());
  BOOST_TEST(denied.status == 403);
  BOOST_TEST(denied.json()["message"]
             == "pods \"" + pod + "\" is forbidden: User \"system:serviceaccount:ops:evictor\" cannot create "
                "resource \"pods/eviction\" in API group \"\" in the namespace \"" + ns + "\"");

  // A Role granting the subresource only, as a controller's least-privilege role would.
  json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", "Role"},
               {"metadata", {{"name", "evict"}}},
               {"rules", json::array({{{"apiGroups", {""}}, {"resources", {"pods/eviction"}}, {"verbs", {"create"}}}})}};
  json binding = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                  {"kind", "RoleBinding"},
                  {"metadata", {{"name", "evict"}}},
                  {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "evict"}}},
                  {"subjects", json::array({{{"kind", "ServiceAccount"}, {"name", "evictor"}, {"namespace", "ops"}}})}};
  BOOST_REQUIRE_EQUAL(create(sim, "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles", role).status, 201);
  BOOST_REQUIRE_EQUAL(create(sim, "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings", binding).status,
                      201);

  auto allowed = http_request(sim, "POST", path, eviction.dump(), "application/json", token());
  BOOST_TEST(allowed.status == 201);
  // The grant is the subresource's alone.
  auto read = http_request(sim, "GET", pods_path(ns) + "/" + pod, {}, "application/json", token());
  BOOST_TEST(read.status == 403);

  auto log = audit(sim);
  bool refused_write = false;
  for (auto& w : log["writes"])
    refused_write = refused_write || (w["subresource"] == "eviction" && w["code"] == 403 && w["name"] == pod);
  BOOST_TEST(refused_write);
  json record;
  for (auto& e : log["evictions"])
    if (e["pod"] == pod)
      record = e;
  BOOST_TEST(record.value("code", 0) == 201);
  BOOST_TEST(record.value("user", "") == "system:serviceaccount:ops:evictor");
}

BOOST_AUTO_TEST_SUITE_END()
