// /metrics as deploy/ ships it (docs/security.md, "The metrics endpoint"): HTTPS on 8443
// where every scrape's bearer token goes to the API server in a TokenReview and its user
// in a SubjectAccessReview for get /metrics, with the controller's own ServiceAccount and
// the rules deploy/rbac gives it; the probes on 8081, plain HTTP. Against a simulator
// that enforces RBAC with the objects of deploy/, as least_privilege_test.cpp runs it.
#include <boost/test/unit_test.hpp>

#include <chrono>

#include "deploy/deploy_support.hpp"
#include "deploy/service_account_run.hpp"
#include "e2e/e2e_fixture.hpp"

using namespace schedopt::deploy_test;
using namespace schedopt::e2e;
namespace utf = boost::unit_test;

namespace {

json first_of_kind(const std::string& file, const std::string& kind, const std::string& name = "") {
  for (auto& obj : manifest_objects(file))
    if (obj.value("kind", "") == kind && (name.empty() || obj["metadata"].value("name", "") == name))
      return obj;
  BOOST_FAIL("no " + kind + " " + name + " in " + file);
  return {};
}

bool has_rule(const json& role, const json& rule) {
  for (auto& r : role.value("rules", json::array()))
    if (r == rule)
      return true;
  return false;
}

} // namespace

BOOST_AUTO_TEST_SUITE(metrics_access)

// The numbers and names that must agree across the binary's defaults, the Deployment,
// the Service, the ServiceMonitor and the roles.
BOOST_AUTO_TEST_CASE(manifests_wire_https_metrics_and_plain_probes) {
  auto [code, help] = run_shell("'" + schedopt_binary() + "' run --help");
  BOOST_REQUIRE(code == 0);
  BOOST_TEST(help.find("--metrics-listen ADDR") != std::string::npos);
  BOOST_TEST(help.find("(default :8443;") != std::string::npos, help);
  BOOST_TEST(help.find("(default :8081;") != std::string::npos, help);

  auto deployment = first_of_kind("deploy/manager/deployment.yaml", "Deployment");
  auto container = deployment["spec"]["template"]["spec"]["containers"][0];
  json ports = json::object();
  for (auto& p : container["ports"])
    ports[p.value("name", "")] = p.value("containerPort", 0);
  BOOST_TEST(ports == json({{"metrics", 8443}, {"health", 8081}}));
  for (const char* probe : {"livenessProbe", "readinessProbe"}) {
    BOOST_TEST_CONTEXT(probe) {
      auto p = container[probe];
      BOOST_TEST(p["httpGet"]["port"] == "health");
      BOOST_TEST(!p["httpGet"].contains("scheme")); // plain HTTP
      // Above the probe server's 1 s silence timeout (actors/health_server.hpp), after
      // which a probe queued behind stalled clients is served.
      BOOST_TEST(p.value("timeoutSeconds", 1) >= 2);
    }
  }

  auto service = first_of_kind("deploy/manager/service.yaml", "Service");
  BOOST_REQUIRE(service["spec"]["ports"].size() == 1u);
  auto port = service["spec"]["ports"][0];
  BOOST_TEST(port["name"] == "https");
  BOOST_TEST(port["port"] == 8443);
  BOOST_TEST(port["targetPort"] == "metrics");

  auto monitor = first_of_kind("deploy/prometheus/servicemonitor.yaml", "ServiceMonitor");
  auto endpoint = monitor["spec"]["endpoints"][0];
  BOOST_TEST(endpoint["port"] == "https");
  BOOST_TEST(endpoint["scheme"] == "https");
  BOOST_TEST(endpoint["path"] == "/metrics");
  BOOST_TEST(endpoint["bearerTokenFile"] == "/var/run/secrets/kubernetes.io/serviceaccount/token");
  BOOST_TEST(endpoint["tlsConfig"]["insecureSkipVerify"] == true);

  auto controller = first_of_kind("deploy/rbac/rbac.yaml", "ClusterRole", "schedopt");
  BOOST_TEST(has_rule(controller, {{"apiGroups", {"authentication.k8s.io"}}, {"resources", {"tokenreviews"}},
                                   {"verbs", {"create"}}}));
  BOOST_TEST(has_rule(controller, {{"apiGroups", {"authorization.k8s.io"}}, {"resources", {"subjectaccessreviews"}},
                                   {"verbs", {"create"}}}));
  auto reader = first_of_kind("deploy/rbac/metrics-reader.yaml", "ClusterRole", "schedopt-metrics-reader");
  BOOST_TEST(reader["rules"] == json::parse(R"([{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}])"));
  BOOST_TEST(slurp(source_dir + "/deploy/rbac/kustomization.yaml").find("- metrics-reader.yaml") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(only_a_token_bound_to_the_reader_role_reads_metrics, *utf::timeout(120)) {
  scratch_dir tmp;
  const fs::path sa_dir = tmp.path / "schedopt", prometheus_dir = tmp.path / "prometheus",
                 stranger_dir = tmp.path / "stranger";
  scenario sc("csi-topology", {"--nodes", "3", "--vmis", "6", "--seed", "5", "--authorization", "rbac",
                               "--service-account", "schedopt/schedopt", "--service-account-dir", sa_dir.string(),
                               "--service-account", "monitoring/prometheus", "--service-account-dir",
                               prometheus_dir.string(), "--service-account", "monitoring/stranger",
                               "--service-account-dir", stranger_dir.string()});
  apply_deploy_rbac(sc.sim());
  bind_cluster_role(sc.sim(), "schedopt-metrics-reader", "monitoring", "prometheus");
  const auto kubeconfig = write_service_account_kubeconfig(sc.sim(), sa_dir, tmp.path / "kubeconfig");

  // As the Deployment runs it: as its ServiceAccount, /metrics secure (the fixture's
  // plain-HTTP flag overridden by the later one).
  auto args = sc.controller_args({"--metrics-secure=true"});
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--kubeconfig")
      args[i + 1] = kubeconfig.string();
  child_process ctl(args);
  struct dump_on_failure {
    child_process& c;
    ~dump_on_failure() {
      if (std::uncaught_exceptions() > 0 || current_test_failed())
        std::cerr << "---- schedopt log ----\n" << c.log_tail() << "---- end ----" << std::endl;
    }
  } dump{ctl};
  BOOST_REQUIRE(eventually([&] { return ctl.metrics_port() > 0 || !ctl.running(); }, std::chrono::seconds(30)));
  BOOST_REQUIRE(ctl.running());
  const std::string url = "https://127.0.0.1:" + std::to_string(ctl.metrics_port()) + "/metrics";
  BOOST_TEST(ctl.err().find("(HTTPS, self-signed certificate;") != std::string::npos);

  auto read = scrape_https(url, slurp(prometheus_dir / "token"));
  BOOST_TEST(read.status == 200, read.body);
  BOOST_TEST(read.body.find("# TYPE schedopt_build_info gauge") != std::string::npos);
  // The reviews went to the API server through the controller's own client.
  for (const char* review : {"tokenreviews", "subjectaccessreviews"})
    BOOST_TEST(read.body.find(std::string("schedopt_api_requests_total{verb=\"create\",resource=\"") + review
                              + "\",code=\"201\"}")
                 != std::string::npos,
               review);

  auto stranger = scrape_https(url, slurp(stranger_dir / "token"));
  BOOST_TEST(stranger.status == 403);
  BOOST_TEST(stranger.body == "Authorization denied for user system:serviceaccount:monitoring:stranger\n");

  for (const std::string& token : std::vector<std::string>{"", "not-a-token", slurp(sa_dir / "token") + "x"}) {
    auto refused = scrape_https(url, token);
    BOOST_TEST(refused.status == 401, "token \"" << token << "\": " << refused.body);
    BOOST_TEST(refused.body == "Unauthorized\n");
  }

  // Cleartext to the HTTPS port: no answer, and nothing of the metrics.
  auto cleartext = plain_get("http://127.0.0.1:" + std::to_string(ctl.metrics_port()) + "/metrics");
  BOOST_TEST(cleartext.status == 0);
  BOOST_TEST(cleartext.body.find("schedopt_") == std::string::npos);

  // The probes: plain HTTP on their own port, no token.
  BOOST_REQUIRE(ctl.health_port() > 0);
  BOOST_TEST(plain_get("http://127.0.0.1:" + std::to_string(ctl.health_port()) + "/healthz").status == 200);
  BOOST_TEST(eventually(
    [&] { return plain_get("http://127.0.0.1:" + std::to_string(ctl.health_port()) + "/readyz").status == 200; },
    std::chrono::seconds(30)));
  BOOST_TEST(ctl.terminate() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
