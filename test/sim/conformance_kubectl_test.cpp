// Conformance with stock kubectl (default, 1.27 and 1.33 when installed): discovery,
// paged get, apply (client- and server-side), status patch, refused strategic patch,
// label, delete and get -w against the simulator.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>

#include "kubectl_runner.hpp"
#include "wire_http.hpp"

using namespace schedopt::test;

namespace {

sim_process& conformance_sim() {
  static sim_process sim({"--nodes", "4", "--vmis", "30", "--seed", "3"});
  return sim;
}

/// Runs `body` once per kubectl; prints SKIPPED when no kubectl is installed.
template <class F>
void for_each_kubectl(F body) {
  auto binaries = kubectl_binaries();
  if (binaries.empty()) {
    BOOST_TEST_MESSAGE("SKIPPED: no kubectl on PATH");
    return;
  }
  auto& sim = conformance_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  for (auto& kubectl : binaries) {
    BOOST_TEST_MESSAGE("kubectl " << kubectl.label << ": " << kubectl.path);
    BOOST_TEST_CONTEXT("kubectl " << kubectl.label) { body(kubectl, sim); }
  }
}

std::string label_of(const kubectl_binary& k) {
  std::string out;
  for (char c : k.label)
    out += c == '.' ? '-' : c;
  return out;
}

std::string write_file(const sim_process& sim, const std::string& name, const std::string& text) {
  auto path = sim.dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string schedopt_yaml(const std::string& name, int parallel) {
  return "apiVersion: stork.libopenstorage.org/v1alpha1\n"
         "kind: SchedulingOptimization\n"
         "metadata:\n"
         "  name: " + name + "\n"
         "spec:\n"
         "  vmHyperconvergence:\n"
         "    enabled: true\n"
         "    coolOffPeriod: 1h\n"
         "    maxParallelMigrations: " + std::to_string(parallel) + "\n";
}

int count_lines(const std::string& text) {
  int n = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty())
      ++n;
  return n;
}

} // namespace

BOOST_AUTO_TEST_SUITE(conformance_kubectl)

BOOST_AUTO_TEST_CASE(discovery_and_api_resources) {
  for_each_kubectl([](const kubectl_binary& k, const sim_process& sim) {
    auto version = run_kubectl(k, sim, "version -o json");
    BOOST_TEST(version.exit_code == 0, version.output);
    BOOST_TEST(version.output.find("v1.37.2") != std::string::npos, version.output);
    auto resources = run_kubectl(k, sim, "api-resources");
    BOOST_TEST(resources.exit_code == 0, resources.output);
    bool found = false;
    std::istringstream in(resources.output);
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("schedulingoptimizations", 0) == 0 && line.find("schedopt") != std::string::npos
          && line.find("false") != std::string::npos)
        found = true;
    BOOST_TEST(found, resources.output);
  });
}

BOOST_AUTO_TEST_CASE(paged_get_returns_everything) {
  for_each_kubectl([](const kubectl_binary& k, const sim_process& sim) {
    auto expected = http_request(sim, "GET", "/apis/kubevirt.io/v1/virtualmachineinstances").json();
    BOOST_REQUIRE(expected["items"].is_array());
    auto got = run_kubectl(k, sim, "get vmi -A --chunk-size=7 --no-headers");
    BOOST_TEST(got.exit_code == 0, got.output);
    BOOST_TEST(count_lines(got.output) == static_cast<int>(expected["items"].size()), got.output);
    auto table = run_kubectl(k, sim, "get nodes");
    BOOST_TEST(table.exit_code == 0, table.output);
    BOOST_TEST(table.output.find("NAME") != std::string::npos, table.output);
    BOOST_TEST(table.output.find("Ready") != std::string::npos, table.output);
  });
}

BOOST_AUTO_TEST_CASE(apply_then_reapply_unchanged) {
  for_each_kubectl([](const kubectl_binary& k, const sim_process& sim) {
    auto name = "apply-" + label_of(k);
    auto file = write_file(sim, name + ".yaml", schedopt_yaml(name, 2));
    auto first = run_kubectl(k, sim, "apply -f " + file);
    BOOST_TEST(first.exit_code == 0, first.output);
    BOOST_TEST(first.output.find("created") != std::string::npos, first.output);
    auto again = run_kubectl(k, sim, "apply -f " + file);
    BOOST_TEST(again.exit_code == 0, again.output);
    BOOST_TEST(again.output.find("unchanged") != std::string::npos, again.output);
    auto changed_file = write_file(sim, name + "-2.yaml", schedopt_yaml(name, 4));
    auto changed = run_kubectl(k, sim, "apply -f " + changed_file);
    BOOST_TEST(changed.exit_code == 0, changed.output);
    BOOST_TEST(changed.output.find("configured") != std::string::npos, changed.output);
    auto get = run_kubectl(k, sim, "get schedopt " + name + " -o jsonpath={.spec.vmHyperconvergence.maxParallelMigrations}");
    BOOST_TEST(get.output == "4");
  });
}

BOOST_AUTO_TEST_CASE(server_side_apply) {
  for_each_kubectl([](const kubectl_binary& k, const sim_process& sim) {
    auto name = "ssa-" + label_of(k);
    auto file = write_file(sim, name + ".yaml", schedopt_yaml(name, 3));
    auto applied = run_kubectl(k, sim, "apply --server-side -f " + file);
    BOOST_TEST(applied.exit_code == 0, applied.output);
    BOOST_TEST(applied.output.find("serverside-applied") != std::string::npos, applied.output);
    auto again = run_kubectl(k, sim, "apply --server-side -f " + file);
    BOOST_TEST(again.exit_code == 0, again.output);
  });
}

BOOST_AUTO_TEST_CASE(status_patch_strategic_refusal_label_and_delete) {
  for_each_kubectl([](const kubectl_binary& k, const sim_process& sim) {
    auto name = "patch-" + label_of(k);
    auto file = write_file(sim, name + ".yaml", schedopt_yaml(name, 1));
    BOOST_REQUIRE(run_kubectl(k, sim, "apply -f " + file).exit_code == 0);
    // --subresource exists since kubectl 1.24; every binary tested here is newer.
    auto status = run_kubectl(k, sim, "patch schedopt " + name
                                        + " --subresource=status --type=merge -p '{\"status\":{\"stage\":\"Final\",\"status\":\"Successful\"}}'");
    BOOST_TEST(status.exit_code == 0, status.output);
    auto stage = run_kubectl(k, sim, "get schedopt " + name + " -o jsonpath={.status.stage}");
    BOOST_TEST(stage.output == "Final");
    auto strategic = run_kubectl(k, sim, "patch schedopt " + name + " --type=strategic -p '{\"metadata\":{\"labels\":{\"a\":\"b\"}}}'");
    BOOST_TEST(strategic.exit_code != 0);
    // kubectl words the 415 itself: "... is not supported by ...: the body of the request
    // was in an unknown format - accepted media types include: ...".
    BOOST_TEST(strategic.output.find("unknown format") != std::string::npos, strategic.output);
    auto label = run_kubectl(k, sim, "label schedopt " + name + " team=" + label_of(k));
    BOOST_TEST(label.exit_code == 0, label.output);
    BOOST_TEST(label.output.find("labeled") != std::string::npos, label.output);
    auto deleted = run_kubectl(k, sim, "delete schedopt " + name);
    BOOST_TEST(deleted.exit_code == 0, deleted.output);
    BOOST_TEST(deleted.output.find("deleted") != std::string::npos, deleted.output);
    auto gone = run_kubectl(k, sim, "get schedopt " + name);
    BOOST_TEST(gone.exit_code != 0);
    BOOST_TEST(gone.output.find("NotFound") != std::string::npos, gone.output);
  });
}

BOOST_AUTO_TEST_CASE(label_node) {
  for_each_kubectl([](const kubectl_binary& k, const sim_process& sim) {
    auto nodes = http_request(sim, "GET", "/api/v1/nodes").json();
    BOOST_REQUIRE(!nodes["items"].empty());
    std::string node = nodes["items"][0]["metadata"]["name"];
    auto label = "conformance-" + label_of(k);
    auto labeled = run_kubectl(k, sim, "label node " + node + " " + label + "=yes");
    BOOST_TEST(labeled.exit_code == 0, labeled.output);
    BOOST_TEST(labeled.output.find("labeled") != std::string::npos, labeled.output);
    auto selected = run_kubectl(k, sim, "get nodes -l " + label + "=yes -o name");
    BOOST_TEST(selected.output.find("node/" + node) != std::string::npos, selected.output);
    auto annotated = run_kubectl(k, sim, "annotate node " + node + " " + label + "=note --overwrite");
    BOOST_TEST(annotated.exit_code == 0, annotated.output);
  });
}

BOOST_AUTO_TEST_CASE(get_watch_streams) {
  for_each_kubectl([](const kubectl_binary& k, const sim_process& sim) {
    auto ns = "watch-" + label_of(k);
    auto ns_file = write_file(sim, ns + "-ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns + "\n");
    BOOST_REQUIRE(run_kubectl(k, sim, "apply -f " + ns_file).exit_code == 0);
    kubectl_stream watch(k, sim, {"get", "configmaps", "-n", ns, "-w"});
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    auto cm_file = write_file(sim, ns + "-cm.yaml",
                              "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: streamed-cm\n  namespace: " + ns
                                + "\ndata:\n  a: b\n");
    auto created = run_kubectl(k, sim, "apply -f " + cm_file);
    BOOST_TEST(created.exit_code == 0, created.output);
    BOOST_TEST(watch.wait_for("streamed-cm"), watch.output());
    watch.kill_it();
  });
}

BOOST_AUTO_TEST_SUITE_END()
