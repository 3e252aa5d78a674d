// The image runs as a pod would: deploy/image/build.sh writes the OCI archive, its layer
// is unpacked into a root filesystem, and `schedopt run --leader-elect --config
// /etc/schedopt/config.yaml` (the Deployment's command, with the ConfigMap's config file)
// runs in it under bubblewrap: the rootfs read-only as /, uid/gid 65532, every namespace
// unshared but the network, no capabilities, tmpfs /tmp, and the ServiceAccount the
// simulator issued mounted where the kubelet mounts it. The simulator's Portworx gateway
// runs as with PX-Security and TLS on; its token and CA are mounted where the Deployment
// mounts the Secret and the ConfigMap. Only KUBERNETES_SERVICE_HOST/PORT and the SDK
// endpoint point it at the simulator (in-cluster config, no kubeconfig), and the simulator enforces
// RBAC with the objects of deploy/ (kubectl apply -k deploy/default when kubectl exists,
// else deploy/rbac posted as JSON). Judged by the API objects: the request reaches Final
// with migrations done, and the Lease names the replica.
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "deploy/deploy_support.hpp"
#include "e2e/e2e_fixture.hpp"

namespace fs = std::filesystem;
using namespace schedopt::deploy_test;
using namespace schedopt::e2e;
namespace utf = boost::unit_test;

namespace {

/// Skips (reported as skipped by Boost.Test, and by CTest through the "test_deploy
/// skipped:" line) when the image cannot be built or run here.
boost::test_tools::assertion_result image_tools_present(utf::test_unit_id) {
  std::string missing;
  for (const char* tool : {"buildah", "bwrap", "tar"})
    if (on_path(tool).empty())
      missing += std::string(missing.empty() ? "" : ", ") + tool;
  if (missing.empty())
    return true;
  std::cout << "test_deploy skipped: " << missing
            << " missing (deploy/bootstrap.sh installs buildah and bubblewrap)" << std::endl;
  boost::test_tools::assertion_result r(false);
  r.message() << missing << " missing";
  return r;
}

/// A process named `comm` among the descendants of `root` (bwrap's child's child), 0 if none.
pid_t descendant_named(pid_t root, const std::string& comm) {
  std::map<pid_t, std::pair<pid_t, std::string>> procs; // pid -> (ppid, comm)
  for (const auto& e : fs::directory_iterator("/proc")) {
    pid_t pid = std::atoi(e.path().filename().c_str());
    if (pid <= 0)
      continue;
    std::string stat = slurp(e.path() / "stat");
    auto open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos)
      continue;
    std::istringstream rest(stat.substr(close + 2));
    char state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    procs[pid] = {ppid, stat.substr(open + 1, close - open - 1)};
  }
  for (const auto& [pid, info] : procs) {
    if (info.second != comm)
      continue;
    for (pid_t up = info.first; up > 1; up = procs.count(up) ? procs[up].first : 0)
      if (up == root)
        return pid;
  }
  return 0;
}

json blob(const fs::path& layout, const std::string& digest) {
  return json::parse(slurp(layout / "blobs" / "sha256" / digest.substr(digest.find(':') + 1)));
}

/// The config.yaml the ConfigMap of deploy/manager carries (its block scalar, unindented).
std::string config_map_file() {
  std::istringstream in(slurp(source_dir + "/deploy/manager/configmap.yaml"));
  std::string line, out;
  bool inside = false;
  while (std::getline(in, line)) {
    if (inside) {
      if (line.rfind("    ", 0) != 0 && !line.empty())
        break;
      out += (line.size() > 4 ? line.substr(4) : std::string()) + "\n";
    } else if (line.find("config.yaml: |") != std::string::npos) {
      inside = true;
    }
  }
  return out;
}

/// Posts every object of the given manifests as the simulator's admin (409 is fine: the
/// simulator already made the ServiceAccount it issued a token for).
void post_manifests(const sim_process& sim, const std::vector<std::string>& files) {
  for (const auto& file : files)
    for (const auto& obj : manifest_objects(file)) {
      auto reply = schedopt::test::http_request(sim, "POST", collection_path(obj), obj.dump(),
                                                "application/json");
      BOOST_TEST_INFO(file << ": " << obj.value("kind", "") << " -> " << reply.body);
      BOOST_REQUIRE(reply.status == 201 || reply.status == 409);
    }
}

} // namespace

BOOST_AUTO_TEST_SUITE(image)

BOOST_AUTO_TEST_CASE(image_runs_as_a_pod_converging_a_request_under_rbac,
                     *utf::precondition(image_tools_present) * utf::timeout(300)) {
  scratch_dir tmp;
  const fs::path archive = tmp.path / "schedopt-image.tar";
  const fs::path layout = tmp.path / "oci";
  const fs::path rootfs = tmp.path / "rootfs";
  const fs::path sa_dir = tmp.path / "serviceaccount";
  const fs::path config_dir = tmp.path / "config";
  const fs::path portworx_dir = tmp.path / "portworx"; // the projected Secret and ConfigMap
  const fs::path sdk_ca = tmp.path / "sdk-ca.crt";

  // 1. The image, built by the same script as the `image` target.
  auto built = run_shell("'" + source_dir + "/deploy/image/build.sh' --binary '" + schedopt_binary() + "' --output '"
                   + archive.string() + "'");
  BOOST_REQUIRE_MESSAGE(built.first == 0, "build.sh failed:\n" + built.second);
  BOOST_TEST_MESSAGE(built.second);

  // 2. Its root filesystem, from the archive itself: index -> manifest -> config, layers.
  fs::create_directories(layout);
  fs::create_directories(rootfs);
  auto untar = run_shell("tar -xf '" + archive.string() + "' -C '" + layout.string() + "'");
  BOOST_REQUIRE_MESSAGE(untar.first == 0, untar.second);
  json index = json::parse(slurp(layout / "index.json"));
  BOOST_REQUIRE_EQUAL(index["manifests"].size(), 1u);
  json manifest = blob(layout, index["manifests"][0]["digest"]);
  json config = blob(layout, manifest["config"]["digest"]);
  BOOST_TEST(config["config"]["User"].get<std::string>() == "65532:65532");
  BOOST_TEST(config["config"]["Entrypoint"] == json::parse(R"(["/usr/local/bin/schedopt", "run"])"));
  // The Deployment's container ports: /metrics (HTTPS) and the probes.
  BOOST_TEST(config["config"]["ExposedPorts"] == json::parse(R"({"8081/tcp": {}, "8443/tcp": {}})"),
             config["config"].value("ExposedPorts", json()).dump());
  auto labels = config["config"]["Labels"];
  BOOST_TEST(labels.value("org.opencontainers.image.revision", "").size() >= 7u);
  BOOST_TEST(!labels.value("org.opencontainers.image.version", "").empty());
  BOOST_TEST(!labels.value("org.opencontainers.image.source", "").empty());
  // The SBOM (test/deploy/sbom_test.cpp checks what it says): in the image where the label
  // points, and beside the archive.
  const std::string sbom_path = labels.value("io.github.libopenstorage.schedopt.sbom", "");
  BOOST_TEST(sbom_path == "/usr/share/doc/schedopt/sbom.json");
  BOOST_TEST(fs::is_regular_file(tmp.path / "schedopt-image.spdx.json"), "no SBOM beside the archive");
  BOOST_TEST(config["rootfs"]["diff_ids"].size() == manifest["layers"].size());
  for (auto& layer : manifest["layers"]) {
    std::string digest = layer["digest"];
    auto x = run_shell("tar -xf '" + (layout / "blobs" / "sha256" / digest.substr(7)).string() + "' -C '"
                 + rootfs.string() + "'");
    BOOST_REQUIRE_MESSAGE(x.first == 0, x.second);
  }
  for (const char* f : {"usr/local/bin/schedopt", "usr/local/bin/kubectl-schedopt", "etc/ssl/certs/ca-certificates.crt", "etc/passwd", "etc/group",
                        "lib64/ld-linux-x86-64.so.2", "etc/os-release", "var/lib/dpkg/status.d/libc6"})
    BOOST_TEST(fs::exists(rootfs / f), f);
  if (!sbom_path.empty())
    BOOST_TEST(slurp(rootfs / sbom_path.substr(1)) == slurp(tmp.path / "schedopt-image.spdx.json"));
  BOOST_TEST(slurp(rootfs / "etc/passwd").find("nonroot:x:65532:65532:") != std::string::npos);
  BOOST_TEST(slurp(rootfs / "etc/group").find("nonroot:x:65532:") != std::string::npos);
  BOOST_TEST(fs::is_directory(rootfs / "tmp"));

  // 3. The cluster: RBAC enforced, the ServiceAccount schedopt/schedopt mounted as the
  // kubelet would, and the RBAC objects of deploy/ applied by the admin.
  scenario sc("portworx", {"--vmis", "12", "--misplaced", "0.5", "--migration-duration", "1s",
                           "--authorization", "rbac", "--service-account", "schedopt/schedopt",
                           "--service-account-dir", sa_dir.string(),
                           "--sdk-token", "px-token-for-the-image", "--sdk-ca-out", sdk_ca.string()});
  for (const char* f : {"token", "ca.crt", "namespace"})
    BOOST_REQUIRE_MESSAGE(fs::exists(sa_dir / f), std::string("simulator wrote no ") + f);
  BOOST_TEST(slurp(sa_dir / "namespace").rfind("schedopt", 0) == 0u);
  if (!on_path("kubectl").empty()) {
    auto applied = run_shell("kubectl --kubeconfig '" + sc.sim().kubeconfig() + "' apply -k '" + source_dir
                       + "/deploy/default'");
    BOOST_REQUIRE_MESSAGE(applied.first == 0, "kubectl apply -k deploy/default:\n" + applied.second);
    BOOST_TEST_MESSAGE("RBAC from kubectl apply -k deploy/default");
  } else {
    post_manifests(sc.sim(), {"deploy/rbac/serviceaccount.yaml", "deploy/rbac/rbac.yaml"});
    BOOST_TEST_MESSAGE("kubectl missing: RBAC from deploy/rbac posted as JSON");
  }
  // Without the bindings the ServiceAccount may not even list requests.
  auto denied = run_shell("curl -s -o /dev/null -w '%{http_code}' --cacert '" + (sa_dir / "ca.crt").string()
                    + "' -H \"Authorization: Bearer $(cat '" + (sa_dir / "token").string() + "')\" " + sc.sim().url()
                    + "/api/v1/secrets");
  if (denied.first == 0)
    BOOST_TEST(denied.second == "403"); // the ClusterRole grants no Secrets

  fs::create_directories(config_dir);
  std::ofstream(config_dir / "config.yaml") << config_map_file();
  fs::create_directories(portworx_dir);
  fs::copy_file(sc.sim().sdk_token_file(), portworx_dir / "token");
  fs::copy_file(sdk_ca, portworx_dir / "ca.crt");

  // 4. The controller as the pod runs it.
  std::string bwrap = on_path("bwrap");
  setenv("SCHEDOPT_BINARY", bwrap.c_str(), 1);
  std::vector<std::string> args = {
    "--ro-bind", rootfs.string(), "/",
    "--unshare-all", "--share-net", "--die-with-parent", "--hostname", "schedopt-image-test",
    "--uid", "65532", "--gid", "65532", "--cap-drop", "ALL",
    "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
    "--ro-bind", sa_dir.string(), "/var/run/secrets/kubernetes.io/serviceaccount",
    "--ro-bind", config_dir.string(), "/etc/schedopt",
    "--ro-bind", portworx_dir.string(), "/var/run/secrets/portworx",
    "--clearenv",
    "--setenv", "PATH", "/usr/local/bin",
    "--setenv", "KUBERNETES_SERVICE_HOST", "127.0.0.1",
    "--setenv", "KUBERNETES_SERVICE_PORT", std::to_string(sc.sim().port()),
    "--setenv", "MALLOC_ARENA_MAX", "2",
    "--setenv", "POD_NAME", "schedopt-image-test",
    "--setenv", "POD_NAMESPACE", "schedopt",
    "--",
    "/usr/local/bin/schedopt", "run", "--leader-elect", "--config", "/etc/schedopt/config.yaml",
    // The simulator's SDK gateway (https://127.0.0.1:<port>, its certificate names that
    // address) and ports of its own instead of :8443 and :8081; the rest, token and CA
    // files included, is the ConfigMap's (so /metrics is HTTPS with its reviews, as deployed).
    "--portworx-endpoint", sc.sim().sdk_url(),
    "--metrics-listen", "127.0.0.1:0",
    "--health-listen", "127.0.0.1:0",
    "--status-flush-interval", "200ms"};
  child_process ctl(args);
  unsetenv("SCHEDOPT_BINARY");
  struct dump_on_failure {
    child_process& c;
    ~dump_on_failure() {
      if (std::uncaught_exceptions() > 0 || current_test_failed())
        std::cerr << "---- schedopt (bwrap) log ----\n" << c.log_tail() << "---- end ----" << std::endl;
    }
  } dump{ctl};

  // 5. Converges a request, judged by the API objects.
  sc.create_request("from-image", scenario::enabled_spec());
  json done = sc.wait_final("from-image", std::chrono::seconds(120));
  BOOST_TEST(status_of_request(done) == "Successful", done.dump());
  BOOST_TEST(counter(done, "successful") > 0, done.dump());
  BOOST_TEST(sc.schedopt_vmims().size() > 0u);
  json lease = get(sc.sim(), "/apis/coordination.k8s.io/v1/namespaces/schedopt/leases/schedopt-leader");
  BOOST_TEST(lease.value("/spec/holderIdentity"_json_pointer, std::string()).find("schedopt-image-test")
             != std::string::npos, lease.dump());
  // Events on the cluster-scoped request land in "default": the ClusterRole's events rule.
  BOOST_TEST(eventually(
    [&] {
      for (auto& e : items(sc.sim(), "/api/v1/namespaces/default/events"))
        if (e.value("/involvedObject/name"_json_pointer, std::string()) == "from-image")
          return true;
      return false;
    },
    std::chrono::seconds(10)));
  BOOST_TEST(ctl.running());
  if (int port = ctl.health_port(); port > 0) {
    BOOST_TEST(plain_get("http://127.0.0.1:" + std::to_string(port) + "/healthz").status == 200);
    BOOST_TEST(plain_get("http://127.0.0.1:" + std::to_string(port) + "/readyz").status == 200);
  }
  // The kubelet's SIGTERM goes to the container's process, schedopt itself (bwrap does
  // not forward signals): it releases the Lease and exits 0, and bwrap exits with it.
  pid_t inner = descendant_named(ctl.pid(), "schedopt");
  BOOST_REQUIRE_MESSAGE(inner > 0, "no schedopt process under bwrap");
  kill(inner, SIGTERM);
  BOOST_TEST(ctl.wait_exit(std::chrono::seconds(20)) == 0);
  json released = get(sc.sim(), "/apis/coordination.k8s.io/v1/namespaces/schedopt/leases/schedopt-leader");
  BOOST_TEST(released.value("/spec/holderIdentity"_json_pointer, std::string())
               != lease.value("/spec/holderIdentity"_json_pointer, std::string()), released.dump());
}

BOOST_AUTO_TEST_SUITE_END()
