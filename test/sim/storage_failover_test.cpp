// Pool failover: replicas leave the failed node for nodes not yet holding the volume,
// PV affinity follows, a SchedulingOptimization is created, VMIs become misplaced.
#include <boost/test/unit_test.hpp>

#include <thread>

#include <httplib.h>

#include "kubevirt_test_fixture.hpp"
#include "sim/world.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace schedopt::sim::testing;

namespace {

scenario_options opts(const std::string& driver) {
  scenario_options o;
  o.nodes = 6;
  o.vmis = 60;
  o.misplaced = 0.0;
  o.driver = driver;
  o.seed = 9;
  return o;
}

int count_misplaced(object_store& store, storage_backend& storage) {
  int n = 0;
  for (const auto& vmi : store.list(kubevirt::vmi_key).items)
    if (scores_below_best(replica_sets_of(store, storage, vmi), vmi["status"]["nodeName"]))
      ++n;
  return n;
}

} // namespace

BOOST_AUTO_TEST_SUITE(storage_failover)

BOOST_AUTO_TEST_CASE(failover_moves_replicas_and_creates_a_request) {
  for (auto driver : {"csi-topology", "portworx", "longhorn"}) {
    BOOST_TEST_CONTEXT("driver " << driver) {
      object_store store;
      world w{store, opts(driver)};
      auto before = w.storage().volumes();
      BOOST_CHECK_EQUAL(count_misplaced(store, w.storage()), 0);
      auto name = w.failover("node-02");
      BOOST_REQUIRE(name);
      BOOST_CHECK(name->rfind("pool-failover-", 0) == 0);

      auto after = w.storage().volumes();
      BOOST_REQUIRE_EQUAL(before.size(), after.size());
      int moved = 0;
      for (std::size_t i = 0; i < after.size(); ++i) {
        const auto& nodes = after[i].replica_nodes;
        BOOST_CHECK_EQUAL(nodes.size(), before[i].replica_nodes.size());
        BOOST_CHECK(std::find(nodes.begin(), nodes.end(), "node-02") == nodes.end());
        BOOST_CHECK_EQUAL(std::set<std::string>(nodes.begin(), nodes.end()).size(), nodes.size());
        if (nodes != before[i].replica_nodes)
          ++moved;
      }
      BOOST_CHECK_GT(moved, 0);
      // csi-topology publishes the new placement in the PV (the helper reads it from there).
      for (const auto& vol : after) {
        auto pv = store.get("persistentvolumes", "", vol.pv_name);
        BOOST_REQUIRE(pv);
        if (std::string{driver} == "csi-topology") {
          auto values = (*pv)["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"];
          BOOST_CHECK(std::set<std::string>(values.begin(), values.end()) ==
                      std::set<std::string>(vol.replica_nodes.begin(), vol.replica_nodes.end()));
        }
      }
      BOOST_CHECK_GT(count_misplaced(store, w.storage()), 0);

      auto request = store.get("schedulingoptimizations.stork.libopenstorage.org", "", *name);
      BOOST_REQUIRE(request);
      BOOST_CHECK_EQUAL((*request)["kind"], "SchedulingOptimization");
      BOOST_CHECK_EQUAL((*request)["spec"]["vmHyperconvergence"]["enabled"], true);
      BOOST_CHECK_EQUAL((*request)["metadata"]["generateName"], "pool-failover-");
    }
  }
}

BOOST_AUTO_TEST_CASE(failover_of_unknown_node_is_an_error) {
  object_store store;
  world w{store, opts("portworx")};
  auto r = w.failover("node-77");
  BOOST_REQUIRE(!r);
  BOOST_CHECK(r.err().message.find("node-77") != std::string::npos);
  BOOST_CHECK(store.list("schedulingoptimizations.stork.libopenstorage.org").items.empty());
  BOOST_CHECK(w.failover()); // a seeded choice
}

BOOST_AUTO_TEST_CASE(world_serves_sdk_and_migrates_on_its_own_thread) {
  object_store store;
  auto o = opts("portworx");
  o.phase_delay = std::chrono::milliseconds{5};
  o.migration_duration = std::chrono::milliseconds{20};
  world w{store, o};
  BOOST_REQUIRE(w.start(0, "tok"));
  auto url = w.sdk_url();
  BOOST_CHECK(url.rfind("http://127.0.0.1:", 0) == 0);
  httplib::Client client{url};
  auto res = client.Get("/v1/nodes", {{"Authorization", "Bearer tok"}});
  BOOST_REQUIRE(res);
  BOOST_CHECK_EQUAL(res->status, 200);

  auto vmi = store.list(kubevirt::vmi_key).items.front();
  json m = {{"metadata", {{"generateName", "t-"}, {"namespace", vmi["metadata"]["namespace"]}}},
            {"spec", {{"vmiName", vmi["metadata"]["name"]}}}};
  auto made = store.create(kubevirt::vmim_key, m);
  BOOST_REQUIRE(made);
  std::string phase;
  // Generous bound: the thread needs a small fraction of it; only a hang fails this.
  for (int i = 0; i < 1000 && phase != "Succeeded"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
    auto got = store.get(kubevirt::vmim_key, (*made)["metadata"]["namespace"], (*made)["metadata"]["name"]);
    phase = got ? phase_of(*got) : "";
  }
  BOOST_CHECK_EQUAL(phase, "Succeeded");
  w.stop();
}

BOOST_AUTO_TEST_SUITE_END()
