// Running the controller as deploy/ installs it, against a simulator that enforces RBAC:
// the shipped roles applied, the controller's kubeconfig authenticating as the
// ServiceAccount the simulator mounted, and other accounts bound to shipped roles.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>


#include "deploy/deploy_support.hpp"
#include "e2e/e2e_fixture.hpp"

namespace schedopt::deploy_test {

/// A kubeconfig that authenticates as the ServiceAccount the simulator mounted in `sa_dir`.
inline fs::path write_service_account_kubeconfig(const schedopt::test::sim_process& sim, const fs::path& sa_dir,
                                                 const fs::path& file) {
  std::ofstream out(file);
  out << "apiVersion: v1\nkind: Config\n"
      << "clusters:\n- name: sim\n  cluster:\n    server: \"" << sim.url() << "\"\n"
      << "    certificate-authority: \"" << (sa_dir / "ca.crt").string() << "\"\n"
      << "users:\n- name: schedopt\n  user:\n    tokenFile: \"" << (sa_dir / "token").string() << "\"\n"
      << "contexts:\n- name: schedopt\n  context:\n    cluster: sim\n    user: schedopt\n    namespace: schedopt\n"
      << "current-context: schedopt\n";
  return file;
}

/// deploy/'s objects: `kubectl apply -k deploy/default` when kubectl exists, else the
/// RBAC files of deploy/rbac posted as JSON.
inline void apply_deploy_rbac(const schedopt::test::sim_process& sim) {
  if (!on_path("kubectl").empty()) {
    auto applied = run_shell("kubectl --kubeconfig '" + sim.kubeconfig() + "' apply -k '" + source_dir
                             + "/deploy/default'");
    BOOST_REQUIRE_MESSAGE(applied.first == 0, "kubectl apply -k deploy/default:\n" + applied.second);
    BOOST_TEST_MESSAGE("RBAC from kubectl apply -k deploy/default");
    return;
  }
  for (const char* file : {"deploy/rbac/serviceaccount.yaml", "deploy/rbac/rbac.yaml", "deploy/rbac/metrics-reader.yaml"})
    for (auto& obj : manifest_objects(file)) {
      auto reply = schedopt::test::http_request(sim, "POST", collection_path(obj), obj.dump());
      BOOST_TEST_INFO(file << ": " << obj.value("kind", "") << " -> " << reply.body);
      BOOST_REQUIRE(reply.status == 201 || reply.status == 409); // the simulator made the SA
    }
  BOOST_TEST_MESSAGE("kubectl missing: RBAC from deploy/rbac posted as JSON");
}

/// Binds ClusterRole `role` to ServiceAccount `ns/name`, as an installer would.
inline void bind_cluster_role(const schedopt::test::sim_process& sim, const std::string& role, const std::string& ns,
                              const std::string& name) {
  json binding = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                  {"kind", "ClusterRoleBinding"},
                  {"metadata", {{"name", role + "-" + ns + "-" + name}}},
                  {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role}}},
                  {"subjects", json::array({{{"kind", "ServiceAccount"}, {"name", name}, {"namespace", ns}}})}};
  auto bound = schedopt::test::http_request(sim, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                                            binding.dump());
  BOOST_REQUIRE_MESSAGE(bound.status == 201, bound.body);
}

/// GET over HTTPS as Prometheus does with insecureSkipVerify, with `token` as bearer
/// (none when empty); status 0 when no answer came.
inline schedopt::test::http_reply scrape_https(const std::string& url, const std::string& token) {
  return schedopt::e2e::plain_get(url, {token, "", true});
}

} // namespace schedopt::deploy_test
