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
  // SCHEDOPT_DIFFERENTIAL_VERBOSE=1: both whole answers of each differing row.
  if (std::getenv("SCHEDOPT_DIFFERENTIAL_VERBOSE") != nullptr)
    for (auto& r : results)
      if (!r.differences.empty())
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
  replayer real({"kube-apiserver", cp.url(), cp.ca_file(), cp.token(), cp.value("ADMIN_KUBECONFIG"), kubectl, files,
                 probe});
  replayer simulated({"simulator", sim.url(), sim.ca_file(), sim.token(), sim.kubeconfig(), kubectl, files, probe});

  std::vector<row_result> results;
  std::set<std::string> differing;
  const auto rows = corpus().at("rows");
  BOOST_REQUIRE(!rows.empty());
  for (auto& row : rows) {
    row_result r{row.value("label", ""), real.run(row), simulated.run(row), {}};
    // A row that names the status kube-apiserver gives it checks the probe itself: two
    // servers refusing a malformed request alike would compare equal.
    if (row.contains("expect"))
      BOOST_TEST(r.real.status == row["expect"].get<long>(), r.label << ": kube-apiserver answered " << r.real.summary);
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
