// `kubectl apply -k` of an install-shaped kustomization (every kind deploy/ uses: Namespace,
// ServiceAccount, RBAC, ConfigMap, Secret, Service, Deployment, PDB, NetworkPolicy,
// ServiceMonitor, PrometheusRule) against a simulator under --authorization rbac, and a
// ServiceAccount token used from kubectl getting exactly what that install granted.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kubectl_runner.hpp"
#include "temp_dir.hpp"

using namespace schedopt::test;

namespace {

/// Static, so it is removed at exit after the simulator writing into it.
const std::string& reader_dir() {
  static temp_dir dir("schedopt-sim-install");
  return dir.path;
}

sim_process& install_sim() {
  static sim_process sim({"--nodes", "2", "--vmis", "2", "--authorization", "rbac",
                          "--service-account", "kubectl-test/reader", "--service-account-dir",
                          reader_dir() + "/reader"});
  return sim;
}

std::string label_of(const kubectl_binary& k) {
  std::string out;
  for (char c : k.label)
    out += c == '.' ? '-' : c;
  return out;
}

/// Every kind an install holds; kustomize puts them in namespace `ns` and prefixes every
/// name (cluster-scoped ones too, and the references to them).
std::string write_kustomization(const std::string& dir, const std::string& ns, const std::string& prefix) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/kustomization.yaml")
    << "apiVersion: kustomize.config.k8s.io/v1beta1\n"
       "kind: Kustomization\n"
       "namespace: " << ns << "\n"
       "namePrefix: " << prefix << "\n"
       "resources:\n"
       "  - install.yaml\n";
  std::ofstream(dir + "/install.yaml") << R"(apiVersion: v1
kind: Namespace
metadata:
  name: )" << ns << R"(
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: app
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: app
rules:
  - apiGroups: ["kubevirt.io"]
    resources: ["virtualmachineinstances"]
    verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: app
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: app
subjects:
  - kind: ServiceAccount
    name: app
    namespace: )" << ns << R"(
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: config-reader
rules:
  - apiGroups: [""]
    resources: ["configmaps"]
    verbs: ["get", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: config-reader
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: config-reader
subjects:
  - kind: ServiceAccount
    name: app
  - kind: Group
    apiGroup: rbac.authorization.k8s.io
    name: system:serviceaccounts:kubectl-test
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: config
data:
  config.yaml: |
    driver: portworx
---
apiVersion: v1
kind: Secret
metadata:
  name: sdk-token
type: Opaque
stringData:
  token: not-a-secret
---
apiVersion: v1
kind: Service
metadata:
  name: metrics
  labels:
    app.kubernetes.io/name: app
spec:
  selector:
    app.kubernetes.io/name: app
  ports:
    - name: metrics
      port: 8080
      targetPort: metrics
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: app
  template:
    metadata:
      labels:
        app.kubernetes.io/name: app
    spec:
      serviceAccountName: app
      containers:
        - name: manager
          image: ghcr.io/libopenstorage/schedopt:0.1.0
          args: ["run", "--leader-elect"]
          ports:
            - name: metrics
              containerPort: 8080
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: app
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: app
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: app
spec:
  podSelector:
    matchLabels:
      app.kubernetes.io/name: app
  policyTypes: ["Ingress"]
  ingress:
    - ports:
        - port: 8080
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: app
spec:
  selector:
    matchLabels:
      app.kubernetes.io/name: app
  endpoints:
    - port: metrics
      interval: 30s
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: app
spec:
  groups:
    - name: schedopt
      rules:
        - alert: SchedoptDown
          expr: absent(up{job="schedopt"} == 1)
          for: 5m
)";
  return dir;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

BOOST_AUTO_TEST_SUITE(kubectl_install)

BOOST_AUTO_TEST_CASE(apply_k_of_every_install_kind_succeeds_under_rbac) {
  auto binaries = kubectl_binaries();
  if (binaries.empty()) {
    BOOST_TEST_MESSAGE("SKIPPED: no kubectl on PATH");
    return;
  }
  auto& sim = install_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto reader_token = read_file(reader_dir() + "/reader/token");
  BOOST_REQUIRE(!reader_token.empty());
  for (auto& k : binaries) {
    BOOST_TEST_CONTEXT("kubectl " << k.label) {
      auto ns = "install-" + label_of(k);
      auto prefix = label_of(k) + "-";
      auto dir = write_kustomization(sim.dir() + "/kustomize-" + label_of(k), ns, prefix);
      auto applied = run_kubectl(k, sim, "apply -k " + dir);
      BOOST_TEST(applied.exit_code == 0, applied.output);
      for (auto* kind : {"namespace/", "serviceaccount/", "clusterrole.rbac.authorization.k8s.io/",
                         "clusterrolebinding.rbac.authorization.k8s.io/", "role.rbac.authorization.k8s.io/",
                         "rolebinding.rbac.authorization.k8s.io/", "configmap/", "secret/", "service/",
                         "deployment.apps/", "poddisruptionbudget.policy/", "networkpolicy.networking.k8s.io/",
                         "servicemonitor.monitoring.coreos.com/", "prometheusrule.monitoring.coreos.com/"}) {
        BOOST_TEST(applied.output.find(std::string(kind)) != std::string::npos, kind << " in " << applied.output);
      }
      BOOST_TEST(applied.output.find(" created") != std::string::npos, applied.output);
      // Applying again changes nothing but the PDB (its selector's patchStrategy is
      // "replace", so kubectl always sends it, as against a real cluster).
      auto again = run_kubectl(k, sim, "apply -k " + dir);
      BOOST_TEST(again.exit_code == 0, again.output);
      BOOST_TEST(again.output.find("deployment.apps/" + prefix + "app unchanged") != std::string::npos,
                 again.output);
      auto listed = run_kubectl(k, sim, "get deploy,svc,cm,secret,pdb,netpol,servicemonitor,prometheusrule,"
                                        "sa,role,rolebinding -n " + ns + " --no-headers");
      BOOST_TEST(listed.exit_code == 0, listed.output);
      for (auto* kind : {"deployment.apps/", "servicemonitor.monitoring.coreos.com/",
                         "prometheusrule.monitoring.coreos.com/", "networkpolicy.networking.k8s.io/"}) {
        BOOST_TEST(listed.output.find(kind + prefix + "app") != std::string::npos, listed.output);
      }

      // The reader account is granted configmaps in that namespace by the Group subject,
      // and nothing else.
      auto cms = run_kubectl(k, sim, "--token " + reader_token + " get configmaps -n " + ns);
      BOOST_TEST(cms.exit_code == 0, cms.output);
      BOOST_TEST(cms.output.find(prefix + "config") != std::string::npos, cms.output);
      auto secrets = run_kubectl(k, sim, "--token " + reader_token + " get secrets -n " + ns);
      BOOST_TEST(secrets.exit_code != 0);
      BOOST_TEST(secrets.output.find("Error from server (Forbidden): secrets is forbidden: User "
                                     "\"system:serviceaccount:kubectl-test:reader\" cannot list resource "
                                     "\"secrets\" in API group \"\" in the namespace \"" + ns + "\"")
                     != std::string::npos,
                 secrets.output);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
