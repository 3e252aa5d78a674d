// The differential suite (docs/testing.md): every row of corpus.json replayed against a
// real kube-apiserver and against `schedopt-sim serve`, the answers compared after
// normalise.hpp takes out what must differ. It prints the table of differences. The rows
// that differ must be exactly those known_differences.txt lists: a new difference fails
// the suite, and so does a fixed one still listed, so the list only shrinks.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "differential/replay.hpp"
#include "e2e/kube_calls.hpp"
#include "realcp/control_plane.hpp"

using namespace schedopt;
using namespace schedopt::differential;

namespace {

std::string source_file(const std::string& relative) { return std::string(SCHEDOPT_SOURCE_DIR) + "/" + relative; }

json corpus() {
  std::ifstream in(source_file("test/differential/corpus.json"));
  return json::parse(in);
}

std::set<std::string> known_differences() {
  std::set<std::string> out;
  std::ifstream in(source_file("test/differential/known_differences.txt"));
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#')
      out.insert(line);
  return out;
}

/// The CRDs the simulator serves (sim/crds) that the corpus touches, installed in the real
/// server as an operator would (server-side apply), established before the first row.
void install_crds(const realcp::control_plane& cp) {
  std::string kubectl = cp.value("BIN") + "/kubectl --kubeconfig '" + cp.value("ADMIN_KUBECONFIG") + "' ";
  for (const char* name : {"schedulingoptimizations.stork.libopenstorage.org", "virtualmachineinstances.kubevirt.io",
                           "virtualmachineinstancemigrations.kubevirt.io", "virtualmachines.kubevirt.io",
                           "kubevirts.kubevirt.io"}) {
    auto apply = kubectl + "apply --server-side -f '" + source_file(std::string("sim/crds/") + name + ".yaml")
                 + "' > /dev/null";
    BOOST_REQUIRE_MESSAGE(std::system(apply.c_str()) == 0, "cannot install CRD " << name);
    auto wait = kubectl + "wait --for condition=established --timeout=60s crd/" + name + " > /dev/null";
    BOOST_REQUIRE_MESSAGE(std::system(wait.c_str()) == 0, "CRD " << name << " never established");
  }
}

/// informer/'s client-go probe built into `dir` with upstream's flags (hack/lib/golang.sh:
/// no cgo, -trimpath), from the pinned go.mod/go.sum; Go's build cache makes a rebuild
/// take seconds.
std::string build_informer_probe(const std::string& dir) {
  auto out = dir + "/informer-sync";
  auto cmd = "cd '" + source_file("test/differential/informer") + "' && CGO_ENABLED=0 GOFLAGS=-mod=readonly "
             "go build -trimpath -ldflags '-s -w' -o '" + out + "' . 2>&1";
  BOOST_REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, "cannot build test/differential/informer (needs Go >= 1.26)");
  return out;
}

/// Where the client-library probes are installed: the build tree, kept across runs.
std::filesystem::path clients_dir() {
  return std::filesystem::path(SCHEDOPT_BINARY_DIR).parent_path() / "differential-clients";
}

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

/// Runs a shell command, its output to `log`; true when it exits 0.
bool run_logged(const std::string& cmd, const std::filesystem::path& log) {
  return std::system((cmd + " > '" + log.string() + "' 2>&1").c_str()) == 0;
}

/// python/'s probe: a venv in the build tree with the pinned, hash-checked requirements
/// (pip --require-hashes), made again only when requirements.txt changed (a stamp holds
/// the copy it was made from) or the venv no longer runs (its python3 went away).
/// Returns the program and its leading arguments.
std::vector<std::string> set_up_python_probe() {
  auto dir = clients_dir() / "python";
  auto requirements = source_file("test/differential/python/requirements.txt");
  auto stamp = dir / "requirements.installed";
  if (!std::filesystem::exists(stamp) || slurp(stamp) != slurp(requirements)
      || std::system(("'" + dir.string() + "/bin/python' -c 'import kubernetes' 2> /dev/null").c_str()) != 0) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir.parent_path());
    auto log = dir.parent_path() / "python-install.log";
    auto cmd = "python3 -m venv '" + dir.string() + "' && '" + dir.string()
               + "/bin/pip' install --disable-pip-version-check --no-input -q --require-hashes -r '" + requirements
               + "'";
    BOOST_REQUIRE_MESSAGE(run_logged(cmd, log), "cannot install test/differential/python's requirements (needs "
                                                "python3 with venv, python3-venv on Debian): see " << log);
    std::filesystem::copy_file(requirements, stamp, std::filesystem::copy_options::overwrite_existing);
  }
  return {(dir / "bin" / "python").string(), source_file("test/differential/python/probe.py")};
}

/// node/'s probe: `npm ci` of the pinned package-lock.json into the build tree, again
/// only when the lock changed; probe.mjs is copied beside node_modules, where Node's
/// ES module resolution looks for its import.
std::vector<std::string> set_up_node_probe() {
  auto dir = clients_dir() / "node";
  auto source = std::filesystem::path(source_file("test/differential/node"));
  auto stamp = dir / "package-lock.installed";
  std::filesystem::create_directories(dir);
  if (!std::filesystem::exists(stamp) || slurp(stamp) != slurp(source / "package-lock.json")) {
    std::filesystem::remove_all(dir / "node_modules");
    for (const char* file : {"package.json", "package-lock.json"})
      std::filesystem::copy_file(source / file, dir / file, std::filesystem::copy_options::overwrite_existing);
    auto log = dir.parent_path() / "node-install.log";
    auto cmd = "cd '" + dir.string() + "' && npm ci --ignore-scripts --no-audit --no-fund";
    BOOST_REQUIRE_MESSAGE(run_logged(cmd, log), "cannot npm ci test/differential/node (needs node and npm): see "
                                                    << log);
    std::filesystem::copy_file(source / "package-lock.json", stamp, std::filesystem::copy_options::overwrite_existing);
  }
  std::filesystem::copy_file(source / "probe.mjs", dir / "probe.mjs", std::filesystem::copy_options::overwrite_existing);
  return {"node", (dir / "probe.mjs").string()};
}

/// The files kubectl rows name (${file:NAME}).
std::string corpus_files() {
  char tmpl[] = "/tmp/schedopt-differential-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::ofstream(dir + "/applied.yaml") << "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kubectl-applied\n"
                                          "data:\n  by: kubectl\n";
  return dir;
}

struct row_result {
  std::string label;
  answer real;
  answer simulated;
  std::vector<std::string> differences;
};

void print_table(const std::vector<row_result>& results) {
  std::size_t differing = 0;
  for (auto& r : results)
    differing += r.differences.empty() ? 0 : 1;
  std::cout << "\ndifferential: " << differing << " of " << results.size()
            << " requests answered differently (kube-apiserver | schedopt-sim serve)\n\n"
            << "| request | kube-apiserver | simulator | differs at |\n|---|---|---|---|\n";
  for (auto& r : results) {
    if (r.differences.empty())
      continue;
    std::string where;
    for (std::size_t i = 0; i < r.differences.size() && i < 3; ++i)
      where += (i ? ", " : "") + r.differences[i];
    if (r.differences.size() > 3)
      where += ", … (" + std::to_string(r.differences.size()) + ")";
    std::cout << "| " << r.label << " | " << r.real.summary << " | " << r.simulated.summary << " | " << where
              << " |\n";
  }
  std::cout << std::endl;
  // SCHEDOPT_DIFFERENTIAL_VERBOSE=1: both whole answers of each differing row; =all: of
  // every row.
  const char* verbose = std::getenv("SCHEDOPT_DIFFERENTIAL_VERBOSE");
  if (verbose != nullptr)
    for (auto& r : results)
      if (!r.differences.empty() || std::string(verbose) == "all")
        std::cout << "---- " << r.label << "\nkube-apiserver: " << r.real.compared.dump() << "\nsimulator:      "
                  << r.simulated.compared.dump() << "\n";
}

} // namespace

BOOST_AUTO_TEST_SUITE(differential)

BOOST_AUTO_TEST_CASE(the_simulators_api_server_answers_as_kube_apiserver, *boost::unit_test::timeout(600)) {
  realcp::control_plane cp;
  BOOST_REQUIRE_MESSAGE(cp.ok(), cp.error());
  install_crds(cp);
  // RBAC on, as on the real server (test/controlplane/run.sh).
  test::sim_process sim({"--nodes", "1", "--vmis", "0", "--authorization", "rbac"});
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto files = corpus_files();
  auto kubectl = cp.value("BIN") + "/kubectl";
  auto probe = build_informer_probe(files);
  std::map<std::string, std::vector<std::string>> clients = {{"python", set_up_python_probe()},
                                                             {"node", set_up_node_probe()}};
  replayer real({"kube-apiserver", cp.url(), cp.ca_file(), cp.token(), cp.value("ADMIN_KUBECONFIG"), kubectl, files,
                 probe, clients});
  replayer simulated(
      {"simulator", sim.url(), sim.ca_file(), sim.token(), sim.kubeconfig(), kubectl, files, probe, clients});

  std::vector<row_result> results;
  std::set<std::string> differing;
  const auto rows = corpus().at("rows");
  BOOST_REQUIRE(!rows.empty());
  for (auto& row : rows) {
    // The client-library probes run all their steps from the first client row: both
    // probes on both servers at once.
    real.start(row);
    simulated.start(row);
    row_result r{row.value("label", ""), real.run(row), simulated.run(row), {}};
    // A row that names the status kube-apiserver gives it checks the probe itself: two
    // servers refusing a malformed request alike would compare equal.
    if (row.contains("expect"))
      BOOST_TEST(r.real.status == row["expect"].get<long>(), r.label << ": kube-apiserver answered " << r.real.summary);
    // A client probe that cannot run would fail alike on both servers and so agree: it
    // must have run on kube-apiserver and printed the row's step there.
    auto kind = row.value("kind", "http");
    if (kind == "python" || kind == "node")
      BOOST_TEST((r.real.status == 0 && r.real.compared.contains("step")),
                 "the " << kind << " probe did not run step \"" << row.value("step", "") << "\" on kube-apiserver: "
                        << r.real.summary);
    r.differences = differences(r.real.compared, r.simulated.compared);
    if (!r.differences.empty())
      differing.insert(r.label);
    results.push_back(std::move(r));
  }
  print_table(results);
  std::filesystem::remove_all(files);

  auto known = known_differences();
  for (auto& label : differing)
    BOOST_TEST(known.count(label) == 1u, "a new difference: " << label);
  for (auto& label : known)
    BOOST_TEST(differing.count(label) == 1u, "fixed, or no longer in the corpus: remove \"" << label
                                                 << "\" from known_differences.txt");
  // The corpus really reached both servers: kube-apiserver stored the first row's namespace.
  BOOST_TEST(e2e::status_of(cp, "GET", "/api/v1/namespaces/differential") == 200);
}

BOOST_AUTO_TEST_SUITE_END()
