// --driver longhorn in the simulator: Longhorn PVs, Volume and Replica CRs in
// longhorn-system matching the replica placement, a pool failover rebuilding replicas
// as Longhorn does (new one created, starting, running, old one stopped -> deleted), the CRDs
// under sim/crds and the flag.
#include <boost/test/unit_test.hpp>

#include <map>
#include <set>

#include "kubevirt_test_fixture.hpp"
#include "sim/crd_loader.hpp"
#include "sim/longhorn.hpp"
#include "sim/sim_options.hpp"
#include "sim/world.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace schedopt::sim::testing;

namespace {

scenario_options longhorn_options() {
  scenario_options o;
  o.nodes = 6;
  o.vmis = 40;
  o.replicas = 2;
  o.misplaced = 0.0;
  o.driver = "longhorn";
  o.seed = 5;
  return o;
}

std::string str(const json& obj, const char* pointer) {
  json::json_pointer p{pointer};
  return obj.contains(p) && obj.at(p).is_string() ? obj.at(p).get<std::string>() : "";
}

} // namespace

BOOST_AUTO_TEST_SUITE(longhorn_sim)

BOOST_AUTO_TEST_CASE(scenario_creates_longhorn_pvs_volumes_and_running_replicas) {
  object_store store;
  world w{store, longhorn_options()};
  auto volumes = w.storage().volumes();
  BOOST_REQUIRE(!volumes.empty());
  BOOST_CHECK(store.get("namespaces", "", longhorn_namespace));
  std::size_t replicas = 0;
  for (const auto& vol : volumes) {
    BOOST_TEST_CONTEXT("volume " << vol.name) {
      BOOST_CHECK_EQUAL(vol.driver, longhorn_csi_driver);
      BOOST_CHECK_EQUAL(vol.id, vol.pv_name);
      auto pv = store.get("persistentvolumes", "", vol.pv_name);
      BOOST_REQUIRE(pv);
      BOOST_CHECK_EQUAL(str(*pv, "/spec/csi/driver"), "driver.longhorn.io");
      BOOST_CHECK_EQUAL(str(*pv, "/spec/csi/volumeHandle"), vol.name);
      BOOST_CHECK(!pv->at("spec").contains("nodeAffinity"));
      auto lhv = store.get(longhorn_volume_key, longhorn_namespace, vol.name);
      BOOST_REQUIRE(lhv);
      BOOST_CHECK_EQUAL((*lhv)["spec"]["numberOfReplicas"], vol.replica_nodes.size());
      BOOST_CHECK_EQUAL(str(*lhv, "/status/robustness"), "healthy");
      BOOST_CHECK_EQUAL(str(*lhv, "/status/kubernetesStatus/pvName"), vol.pv_name);
      auto expected = vol.replica_nodes;
      std::sort(expected.begin(), expected.end());
      BOOST_CHECK(longhorn_running_nodes(store, vol.name) == expected);
      replicas += vol.replica_nodes.size();
    }
  }
  auto all = store.list(longhorn_replica_key, longhorn_namespace).items;
  BOOST_CHECK_EQUAL(all.size(), replicas);
  for (const auto& r : all) {
    BOOST_CHECK_EQUAL(str(r, "/apiVersion"), "longhorn.io/v1beta2");
    BOOST_CHECK_EQUAL(str(r, "/status/currentState"), "running"); // /status written
    BOOST_CHECK(str(r, "/metadata/name").rfind(str(r, "/spec/volumeName") + "-r-", 0) == 0);
  }
  // misplaced = 0: every VMI sits on a best-scoring node by the Replica CRs.
  for (const auto& vmi : store.list(kubevirt::vmi_key).items)
    BOOST_CHECK(!scores_below_best(replica_sets_of(store, w.storage(), vmi), vmi["status"]["nodeName"]));
}

BOOST_AUTO_TEST_CASE(failover_rebuilds_replicas_starting_then_running_and_retires_the_old_ones) {
  object_store store;
  world w{store, longhorn_options()};
  auto before = w.storage().volumes();
  auto since = store.resource_version();
  auto name = w.failover("node-02");
  BOOST_REQUIRE(name);

  std::size_t moved = 0;
  for (const auto& vol : w.storage().volumes()) {
    auto running = longhorn_running_nodes(store, vol.name);
    auto expected = vol.replica_nodes;
    std::sort(expected.begin(), expected.end());
    BOOST_CHECK(running == expected);
    BOOST_CHECK(std::find(running.begin(), running.end(), "node-02") == running.end());
  }
  for (const auto& vol : before)
    moved += std::count(vol.replica_nodes.begin(), vol.replica_nodes.end(), "node-02");
  BOOST_REQUIRE_GT(moved, 0u);
  // No Replica CR is left on the failed node.
  for (const auto& r : store.list(longhorn_replica_key, longhorn_namespace).items)
    BOOST_CHECK_NE(str(r, "/spec/nodeID"), "node-02");

  // What a watch of replicas.longhorn.io sees, per replica name.
  auto events = store.events_since(longhorn_replica_key, longhorn_namespace, since);
  BOOST_REQUIRE(events);
  std::map<std::string, std::vector<std::string>> seen; // name -> "TYPE/state"
  std::map<std::string, std::string> node_of;
  for (const auto& e : *events) {
    auto n = str(e.object, "/metadata/name");
    seen[n].push_back(e.type + "/" + str(e.object, "/status/currentState"));
    node_of[n] = str(e.object, "/spec/nodeID");
  }
  std::size_t rebuilt = 0, retired = 0;
  for (const auto& [n, history] : seen) {
    BOOST_TEST_CONTEXT("replica " << n) {
      if (node_of[n] == "node-02") {
        ++retired;
        BOOST_CHECK((history == std::vector<std::string>{"MODIFIED/running", "MODIFIED/stopped",
                                                         "DELETED/stopped"}));
      } else {
        ++rebuilt;
        // Created without a status (the /status subresource), then started, then running.
        BOOST_CHECK((history == std::vector<std::string>{"ADDED/", "MODIFIED/starting",
                                                         "MODIFIED/running"}));
      }
    }
  }
  BOOST_CHECK_EQUAL(rebuilt, moved);
  BOOST_CHECK_EQUAL(retired, moved);

  // The request the storage side creates, and VMIs now misplaced by the Replica CRs.
  BOOST_CHECK(store.get("schedulingoptimizations.stork.libopenstorage.org", "", *name));
  int misplaced = 0;
  for (const auto& vmi : store.list(kubevirt::vmi_key).items)
    if (scores_below_best(replica_sets_of(store, w.storage(), vmi), vmi["status"]["nodeName"]))
      ++misplaced;
  BOOST_CHECK_GT(misplaced, 0);

  // A second failover of another node rebuilds again without name clashes.
  BOOST_REQUIRE(w.failover("node-03"));
  for (const auto& vol : w.storage().volumes()) {
    auto expected = vol.replica_nodes;
    std::sort(expected.begin(), expected.end());
    BOOST_CHECK(longhorn_running_nodes(store, vol.name) == expected);
  }
}

BOOST_AUTO_TEST_CASE(other_drivers_create_no_longhorn_objects) {
  for (auto driver : {"portworx", "csi-topology"}) {
    auto o = longhorn_options();
    o.driver = driver;
    object_store store;
    world w{store, o};
    BOOST_CHECK(store.list(longhorn_replica_key).items.empty());
    BOOST_CHECK(store.list(longhorn_volume_key).items.empty());
    BOOST_REQUIRE(w.failover("node-02"));
    BOOST_CHECK(store.list(longhorn_replica_key).items.empty());
  }
}

BOOST_AUTO_TEST_CASE(crds_are_served_structural_with_status) {
  auto crds = load_crd_dir(std::string{SCHEDOPT_SOURCE_DIR} + "/sim/crds");
  BOOST_REQUIRE(crds);
  std::set<std::string> found;
  for (const auto& crd : *crds) {
    const auto& t = crd.resource.type;
    if (t.group != "longhorn.io")
      continue;
    found.insert(t.plural);
    BOOST_CHECK_EQUAL(t.version, "v1beta2");
    BOOST_CHECK(t.namespaced);
    BOOST_CHECK(t.status_subresource);
    auto schema = crd.manifest["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    BOOST_CHECK_EQUAL(schema["properties"]["spec"]["x-kubernetes-preserve-unknown-fields"], true);
    BOOST_CHECK_EQUAL(schema["properties"]["status"]["x-kubernetes-preserve-unknown-fields"], true);
  }
  BOOST_CHECK((found == std::set<std::string>{"replicas", "volumes"}));
}

BOOST_AUTO_TEST_CASE(driver_flag_accepts_longhorn) {
  auto cmd = parse_sim_command_line({"serve", "--kubeconfig-out", "/tmp/k", "--driver", "longhorn"});
  BOOST_REQUIRE(cmd);
  BOOST_CHECK_EQUAL(cmd->serve.scenario.driver, "longhorn");
  auto bad = parse_sim_command_line({"serve", "--kubeconfig-out", "/tmp/k", "--driver", "ceph"});
  BOOST_REQUIRE(!bad);
  BOOST_CHECK_NE(bad.err().message.find("longhorn"), std::string::npos);
  auto o = longhorn_options();
  BOOST_CHECK(validate(o));
}

BOOST_AUTO_TEST_SUITE_END()
