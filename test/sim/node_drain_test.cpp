// Node drain: kubectl drain's cordon and evictions, virt-api's eviction admitter marking
// VMIs, and the evacuation controller's VMIMs within KubeVirt's free spots, with the
// migration loop completing them until the node is empty.
#include <boost/test/unit_test.hpp>

#include "kubevirt_test_fixture.hpp"
#include "sim/evacuation_controller.hpp"
#include "sim/kubevirt_controller.hpp"
#include "sim/node_drain.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace schedopt::sim::testing;
using namespace std::chrono_literals;

namespace {

scenario_options drain_scenario() {
  scenario_options o;
  o.nodes = 4;
  o.vmis = 24;
  o.misplaced = 0.3;
  o.seed = 7;
  return o;
}

/// A store built with the drain pieces attached before the scenario, as world does.
struct drain_world {
  object_store store;
  storage_backend storage;
  evacuation_controller evacuation;
  node_drain drainer{store, {}};
  std::unique_ptr<kubevirt_controller> kubevirt;
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();

  explicit drain_world(scenario_options o, evacuation_controller_options e = {}) : evacuation(store, e) {
    register_world_types(store);
    store.set_admission(kubevirt::vmim_key, make_migration_admission(store));
    populate(store, storage, o);
    kubevirt_controller_options k;
    k.stages = default_migration_stages(0ms, 0ms);
    kubevirt = std::make_unique<kubevirt_controller>(store, k);
  }

  std::vector<json> vmis_on(const std::string& node) {
    std::vector<json> out;
    for (auto& v : store.list(kubevirt::vmi_key).items)
      if (v.value("/status/nodeName"_json_pointer, std::string{}) == node)
        out.push_back(v);
    return out;
  }
  std::vector<json> evacuations() {
    std::vector<json> out;
    for (auto& m : store.list(kubevirt::vmim_key).items)
      if (m["metadata"]["name"].get<std::string>().rfind("kubevirt-evacuation-", 0) == 0)
        out.push_back(m);
    return out;
  }
  /// The drain and the evacuation controller, without the migration loop.
  void step_drain(std::chrono::milliseconds by) {
    now += by;
    drainer.tick(now);
    evacuation.tick(now);
  }
};

std::string busiest_node(drain_world& w) {
  std::map<std::string, int> count;
  for (auto& v : w.store.list(kubevirt::vmi_key).items)
    ++count[v["status"]["nodeName"].get<std::string>()];
  return std::max_element(count.begin(), count.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
}

} // namespace

BOOST_AUTO_TEST_SUITE(node_drain_suite)

BOOST_AUTO_TEST_CASE(drain_cordons_marks_vmis_and_creates_evacuations_within_the_caps) {
  drain_world w{drain_scenario()};
  auto node = busiest_node(w);
  auto on_node = w.vmis_on(node).size();
  BOOST_REQUIRE_GT(on_node, 2u); // more VMIs than the per-node cap of 2

  BOOST_REQUIRE(w.drainer.drain(node, w.now));
  auto n = *w.store.get("nodes", "", node);
  BOOST_CHECK(n["spec"].value("unschedulable", false));
  bool tainted = false;
  for (auto& t : n["spec"]["taints"])
    tainted |= t["key"] == "node.kubernetes.io/unschedulable" && t["effect"] == "NoSchedule";
  BOOST_CHECK(tainted);
  BOOST_CHECK(!w.drainer.drained(node));

  w.step_drain(10ms);
  for (auto& v : w.vmis_on(node))
    BOOST_CHECK_EQUAL(v.value("/status/evacuationNodeName"_json_pointer, std::string{}), node);
  // Nothing runs yet, so per sync the node's cap of 2 bounds what is created; each
  // creation queues the node again and, none being past Pending, another 2 follow, as
  // upstream counts only running migrations against the caps.
  auto first = w.evacuations();
  BOOST_REQUIRE_EQUAL(first.size(), 2u);
  for (auto& m : first) {
    BOOST_CHECK_EQUAL(m["metadata"]["annotations"]["kubevirt.io/evacuationMigration"], node);
    BOOST_CHECK(!m["spec"].contains("addedNodeSelector"));
  }
  w.step_drain(10ms);
  BOOST_CHECK_EQUAL(w.evacuations().size(), std::min<std::size_t>(4, on_node));

}

BOOST_AUTO_TEST_CASE(no_free_spot_requeues_the_node_after_five_seconds) {
  evacuation_controller_options e;
  e.fallback.parallel_migrations_per_cluster = 2;
  drain_world w{drain_scenario(), e};
  auto node = busiest_node(w);
  // Two migrations running elsewhere fill the cluster's cap.
  std::vector<json> elsewhere;
  for (auto& v : w.store.list(kubevirt::vmi_key).items)
    if (v["status"]["nodeName"] != node && elsewhere.size() < 2) {
      json m = {{"apiVersion", "kubevirt.io/v1"}, {"kind", "VirtualMachineInstanceMigration"},
                {"metadata", {{"generateName", "other-"}, {"namespace", v["metadata"]["namespace"]}}},
                {"spec", {{"vmiName", v["metadata"]["name"]}}}};
      auto made = w.store.create(kubevirt::vmim_key, m);
      BOOST_REQUIRE(made);
      w.store.modify(kubevirt::vmim_key, (*made)["metadata"]["namespace"], (*made)["metadata"]["name"], [](json& o) {
        o["status"]["phase"] = "Running";
        return true;
      }, /*status_only=*/true);
      elsewhere.push_back(*made);
    }
  BOOST_REQUIRE(w.drainer.drain(node, w.now));
  w.step_drain(10ms);
  BOOST_CHECK(w.evacuations().empty());
  // A spot frees up; that change queues the other VMI's node, not the drained one.
  w.store.modify(kubevirt::vmim_key, elsewhere[0]["metadata"]["namespace"], elsewhere[0]["metadata"]["name"],
                 [](json& o) {
                   o["status"]["phase"] = "Succeeded";
                   return true;
                 }, /*status_only=*/true);
  w.step_drain(1s);
  BOOST_CHECK(w.evacuations().empty());
  w.step_drain(4500ms);
  BOOST_CHECK_EQUAL(w.evacuations().size(), 1u);
}

BOOST_AUTO_TEST_CASE(node_ends_empty_when_kubevirt_completes_the_evacuations) {
  drain_world w{drain_scenario()};
  auto node = busiest_node(w);
  BOOST_REQUIRE(w.drainer.drain(node, w.now));
  for (int i = 0; i < 400 && !w.drainer.drained(node); ++i) {
    w.step_drain(100ms);
    w.kubevirt->tick(w.now);
  }
  BOOST_CHECK(w.drainer.drained(node));
  BOOST_CHECK(w.vmis_on(node).empty());
  for (auto& v : w.store.list(kubevirt::vmi_key).items) {
    BOOST_CHECK_EQUAL(v["status"]["phase"], "Running");
    // virt-handler clears the mark once the VMI has moved (migration-target.go).
    BOOST_CHECK(!v["status"].contains("evacuationNodeName"));
  }
  BOOST_CHECK(!w.evacuations().empty());
}

BOOST_AUTO_TEST_CASE(a_vmi_that_cannot_migrate_keeps_the_drain_waiting) {
  auto o = drain_scenario();
  o.not_migratable = 1.0;
  drain_world w{o};
  auto node = busiest_node(w);
  BOOST_REQUIRE(w.drainer.drain(node, w.now));
  w.step_drain(10ms);
  w.step_drain(6s);
  // LiveMigrate without LiveMigratable=True: the admitter refuses, the VMI stays unmarked.
  for (auto& v : w.vmis_on(node))
    BOOST_CHECK(!v["status"].contains("evacuationNodeName"));
  BOOST_CHECK(w.evacuations().empty());
  BOOST_CHECK(!w.drainer.drained(node));
}

BOOST_AUTO_TEST_CASE(eviction_strategy_none_lets_the_pod_go_and_fails_the_vmi) {
  drain_world w{drain_scenario()};
  auto node = busiest_node(w);
  auto victim = w.vmis_on(node).front();
  w.store.modify(kubevirt::vmi_key, victim["metadata"]["namespace"], victim["metadata"]["name"], [](json& v) {
    v["spec"]["evictionStrategy"] = "None";
    return true;
  });
  BOOST_REQUIRE(w.drainer.drain(node, w.now));
  w.step_drain(10ms);
  auto after = *w.store.get(kubevirt::vmi_key, victim["metadata"]["namespace"], victim["metadata"]["name"]);
  BOOST_CHECK_EQUAL(after["status"]["phase"], "Failed");
  BOOST_CHECK(!after["status"].contains("evacuationNodeName"));
}

BOOST_AUTO_TEST_CASE(draining_an_unknown_node_is_an_error) {
  drain_world w{drain_scenario()};
  BOOST_CHECK(!w.drainer.drain("no-such-node", w.now));
}

BOOST_AUTO_TEST_SUITE_END()
