// The schedopt-requester ClusterRole of deploy/rbac, judged by an API server that enforces
// RBAC: a ServiceAccount bound to it can create, read, watch and delete requests, and can
// never write a request's status (that is schedopt's) nor touch anything else.
#include <boost/test/unit_test.hpp>

#include "deploy/deploy_support.hpp"
#include "sim/sim_process.hpp"
#include "sim/wire_http.hpp"

using namespace schedopt::deploy_test;
using schedopt::test::http_request;
using schedopt::test::sim_process;

namespace {

const std::string requests = "/apis/stork.libopenstorage.org/v1alpha1/schedulingoptimizations";

} // namespace

BOOST_AUTO_TEST_SUITE(requester_role)

BOOST_AUTO_TEST_CASE(may_ask_and_withdraw_but_never_write_status) {
  scratch_dir tmp;
  auto sa_dir = (tmp.path / "driver").string();
  sim_process sim({"--vmis", "4", "--nodes", "3", "--authorization", "rbac", "--service-account",
                   "portworx/px-driver", "--service-account-dir", sa_dir});
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  for (auto& obj : manifest_objects("deploy/rbac/requester.yaml")) {
    auto made = http_request(sim, "POST", collection_path(obj), obj.dump());
    BOOST_REQUIRE_MESSAGE(made.status == 201, made.body);
  }
  json binding = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                  {"kind", "ClusterRoleBinding"},
                  {"metadata", {{"name", "px-driver-requests"}}},
                  {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"},
                               {"name", "schedopt-requester"}}},
                  {"subjects", json::array({{{"kind", "ServiceAccount"}, {"name", "px-driver"},
                                             {"namespace", "portworx"}}})}};
  auto bound = http_request(sim, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding.dump());
  BOOST_REQUIRE_MESSAGE(bound.status == 201, bound.body);

  auto token = slurp(sa_dir + "/token");
  auto as_driver = [&](const std::string& method, const std::string& path, const json& body = nullptr,
                       const std::string& type = "application/json") {
    return http_request(sim, method, path, body.is_null() ? "" : body.dump(), type, token).status;
  };
  json request = {{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
                  {"kind", "SchedulingOptimization"},
                  {"metadata", {{"name", "after-failover"}}},
                  {"spec", {{"vmHyperconvergence", {{"enabled", true}}}}}};
  BOOST_TEST(as_driver("POST", requests, request) == 201);
  BOOST_TEST(as_driver("GET", requests + "/after-failover") == 200);
  BOOST_TEST(as_driver("GET", requests) == 200);
  BOOST_TEST(as_driver("GET", requests + "?watch=true&timeoutSeconds=1") == 200);
  // The status is schedopt's: a requester that could write it could forge an outcome.
  json status = {{"status", {{"stage", "Final"}, {"status", "Successful"}}}};
  BOOST_TEST(as_driver("PATCH", requests + "/after-failover/status", status, "application/merge-patch+json")
             == 403);
  BOOST_TEST(as_driver("PATCH", requests + "/after-failover", {{"metadata", {{"labels", {{"a", "b"}}}}}},
                       "application/merge-patch+json")
             == 403);
  // Nothing else: not the VMs it asks schedopt to move.
  BOOST_TEST(as_driver("POST", "/apis/kubevirt.io/v1/namespaces/default/virtualmachineinstancemigrations",
                       {{"apiVersion", "kubevirt.io/v1"}, {"kind", "VirtualMachineInstanceMigration"},
                        {"metadata", {{"name", "m"}}}, {"spec", {{"vmiName", "x"}}}})
             == 403);
  BOOST_TEST(as_driver("DELETE", requests + "/after-failover") == 200);
}

BOOST_AUTO_TEST_SUITE_END()
