// schedopt as deploy/ installs it, on kube-apiserver's own RBAC and authentication: the
// objects of `kubectl apply -k deploy/default` (server-side), the controller running as
// its ServiceAccount with a token from the TokenRequest API, converging a fleet with
// only the shipped ClusterRole's rights; /metrics answered through real TokenReview and
// SubjectAccessReview; a request created by a user bound to the shipped requester role,
// and refused to one who is not. Judged by kube-apiserver's audit log.
#include <boost/test/unit_test.hpp>

#include <fstream>

#include "e2e/child_process.hpp"
#include "e2e/ground_truth.hpp"
#include "realcp/attached_cluster.hpp"

using namespace schedopt::e2e;
using namespace schedopt::realcp;

namespace {

std::string run_command(const std::string& cmd, int& code) {
  std::string out;
  if (FILE* pipe = popen((cmd + " 2>&1").c_str(), "r")) {
    char buffer[4096];
    while (auto n = fread(buffer, 1, sizeof buffer, pipe))
      out.append(buffer, n);
    code = pclose(pipe);
  }
  return out;
}

/// A token for ServiceAccount ns/name from the TokenRequest API, as the kubelet mounts one.
std::string service_account_token(const schedopt::test::sim_process& api, const std::string& ns,
                                  const std::string& name) {
  json request = {{"apiVersion", "authentication.k8s.io/v1"},
                  {"kind", "TokenRequest"},
                  {"spec", {{"expirationSeconds", 3600}}}};
  auto made = call(api, "POST", "/api/v1/namespaces/" + ns + "/serviceaccounts/" + name + "/token", request, 201);
  return made.value("/status/token"_json_pointer, std::string());
}

void bind(const schedopt::test::sim_process& api, const std::string& role, const json& subject) {
  json binding = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                  {"kind", "ClusterRoleBinding"},
                  {"metadata", {{"name", role + "-" + subject.value("name", "")}}},
                  {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role}}},
                  {"subjects", json::array({subject})}};
  call(api, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding, 201);
}

std::string write_kubeconfig(const control_plane& cp, const std::string& token) {
  auto path = cp.dir() + "/schedopt.kubeconfig";
  std::ofstream(path) << "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: \""
                      << cp.url() << "\"\n    certificate-authority: \"" << cp.ca_file()
                      << "\"\nusers:\n- name: schedopt\n  user:\n    token: \"" << token
                      << "\"\ncontexts:\n- name: schedopt\n  context: {cluster: test, user: schedopt, namespace: "
                         "schedopt}\ncurrent-context: schedopt\n";
  return path;
}

} // namespace

BOOST_AUTO_TEST_SUITE(install)

BOOST_AUTO_TEST_CASE(the_shipped_roles_suffice_and_guard_metrics_and_requests) {
  attached_cluster cluster({"--nodes", "4", "--vmis", "12", "--misplaced", "0.5", "--seed", "5",
                            "--migration-duration", "300ms", "--driver", "portworx"});
  const auto& api = cluster.sim();
  auto& cp = cluster.plane();
  BOOST_REQUIRE(cluster.nodes_ready(std::chrono::seconds(60)));

  // attach installed schedopt's CRD from deploy/crd, labelled part-of stork; the
  // kustomization relabels it part-of schedopt, a conflict server-side apply reports
  // and an installer taking the CRD over resolves with --force-conflicts.
  int code = -1;
  auto applied = run_command("'" + cp.value("BIN") + "/kubectl' --kubeconfig '" + cp.value("ADMIN_KUBECONFIG")
                               + "' apply --server-side --force-conflicts -k '" + SCHEDOPT_SOURCE_DIR
                               + "/deploy/default'",
                             code);
  BOOST_REQUIRE_MESSAGE(code == 0, applied);
  call(api, "POST", "/api/v1/namespaces", json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "monitoring"}}}}, 201);
  for (auto name : {"prometheus", "stranger"})
    call(api, "POST", "/api/v1/namespaces/monitoring/serviceaccounts",
         json{{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", name}}}}, 201);
  bind(api, "schedopt-metrics-reader", {{"kind", "ServiceAccount"}, {"name", "prometheus"}, {"namespace", "monitoring"}});
  bind(api, "schedopt-requester", {{"kind", "User"}, {"name", "requester"}, {"apiGroup", "rbac.authorization.k8s.io"}});

  auto expected = migratable_candidates(ground_truth(api, "portworx"));
  BOOST_REQUIRE(!expected.empty());
  auto kubeconfig = write_kubeconfig(cp, service_account_token(api, "schedopt", "schedopt"));
  // As the Deployment runs it: /metrics secure (the later flag wins).
  auto controller_process = cluster.start_controller(kubeconfig, {"--metrics-secure=true"});
  auto& controller = *controller_process;
  BOOST_REQUIRE(eventually([&] { return controller.metrics_port() > 0 || !controller.running(); },
                           std::chrono::seconds(30)));
  BOOST_REQUIRE_MESSAGE(controller.running(), controller.log_tail());

  // A request, by the user the requester role is bound to; the scraper may not.
  json request = {{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
                  {"kind", "SchedulingOptimization"},
                  {"metadata", {{"name", "installed"}}},
                  {"spec", {{"vmHyperconvergence", {{"enabled", true}}}}}};
  auto as = [&](const char* token_key) {
    return schedopt::test::http_request(api, "POST", requests_path, request.dump(), "application/json",
                                        cp.value(token_key));
  };
  BOOST_TEST(as("SCRAPER_TOKEN").status == 403);
  BOOST_TEST(as("REQUESTER_TOKEN").status == 201);

  auto r = cluster.wait_final("installed", controller);
  BOOST_TEST(r.value("/status/vmHyperconvergence/successful"_json_pointer, 0LL) == (long long)expected.size());
  BOOST_TEST(r.value("/status/vmHyperconvergence/failed"_json_pointer, -1LL) == 0);

  const std::string url = "https://127.0.0.1:" + std::to_string(controller.metrics_port()) + "/metrics";
  auto scrape = [&](const std::string& token) { return plain_get(url, {token, "", true}); };
  auto read = scrape(service_account_token(api, "monitoring", "prometheus"));
  BOOST_TEST(read.status == 200, read.body);
  BOOST_TEST(read.body.find("# TYPE schedopt_build_info gauge") != std::string::npos);
  BOOST_TEST(scrape(service_account_token(api, "monitoring", "stranger")).status == 403);
  BOOST_TEST(scrape("").status == 401);
  BOOST_TEST(scrape("not-a-token").status == 401);

  // kube-apiserver's record: nothing the controller asked for was refused, and the
  // reviews behind /metrics were its own.
  const std::string controller_user = "system:serviceaccount:schedopt:schedopt";
  int refused = 0, token_reviews = 0, access_reviews = 0, vmim_creates = 0;
  for (auto& e : cluster.audit()) {
    if (e.value("/user/username"_json_pointer, std::string()) != controller_user)
      continue;
    auto status = e.value("/responseStatus/code"_json_pointer, 0);
    auto resource = e.value("/objectRef/resource"_json_pointer, std::string());
    if (status == 403)
      ++refused;
    if (e.value("verb", "") == "create" && status == 201) {
      token_reviews += resource == "tokenreviews";
      access_reviews += resource == "subjectaccessreviews";
      vmim_creates += resource == "virtualmachineinstancemigrations";
    }
  }
  BOOST_TEST(refused == 0);
  BOOST_TEST(token_reviews >= 1);
  BOOST_TEST(access_reviews >= 1);
  BOOST_TEST(vmim_creates == (int)expected.size());
}

BOOST_AUTO_TEST_SUITE_END()
