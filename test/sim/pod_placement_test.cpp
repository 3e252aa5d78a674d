// Where a new pod goes: the placement rules on their own (a stork pod to an admissible
// node holding the most replicas of its volumes, any other to the least allocated
// admissible node, FailedScheduling's wording), then over HTTP, replacements of evicted
// scenario pods judged against replica nodes read from the Portworx SDK gateway and
// against the nodes' allocations read from the API.
#include <boost/test/unit_test.hpp>

#include "pod_test_support.hpp"
#include "model/quantity.hpp"
#include "sim/pod_placement.hpp"

using namespace schedopt::sim;
using schedopt::test::eventually;
using schedopt::test::get_json;
using schedopt::test::sim_process;

namespace {

json node(const std::string& name, const std::string& zone = {}) {
  json labels = {{"kubernetes.io/hostname", name}};
  if (!zone.empty())
    labels["topology.kubernetes.io/zone"] = zone;
  return {{"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", json::object()},
          {"status",
           {{"allocatable", {{"cpu", "8"}, {"memory", "16Gi"}}},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json pod(const std::string& scheduler, const std::string& memory = "1Gi") {
  return {{"metadata", {{"name", "p"}, {"namespace", "ns"}}},
          {"spec",
           {{"schedulerName", scheduler},
            {"containers", json::array({{{"name", "c"}, {"resources", {{"requests", {{"cpu", "500m"}, {"memory", memory}}}}}}})}}}};
}

const int64_t gib = int64_t{1} << 30;

/// A request over `nodes` with `used` requested on them (both outlive the request).
struct placement_case {
  std::vector<json> nodes;
  std::map<std::string, pod_resources> used;
  placement_request r;
  placement_case(const json& p, std::vector<json> n) : nodes(std::move(n)) {
    r.pod = &p;
    r.nodes = &nodes;
    r.used = &used;
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(pod_placement)

BOOST_AUTO_TEST_CASE(stork_puts_a_pod_on_the_node_with_most_replicas_whatever_its_load) {
  auto p = pod("stork");
  placement_case c(p, {node("n1"), node("n2"), node("n3"), node("n4")});
  c.r.replica_nodes = {{"n1", "n2"}, {"n2", "n3"}};
  c.used["n2"] = {6000, 12 * gib}; // the busiest node, and the only one with both replicas
  auto d = place_pod(c.r);
  BOOST_TEST(d.node == "n2");
  BOOST_TEST(d.scores["n2"] > d.scores["n1"]);
  BOOST_TEST(d.scores["n1"] > d.scores["n4"]); // one replica beats none
}

BOOST_AUTO_TEST_CASE(any_other_scheduler_takes_the_least_allocated_node) {
  auto p = pod("default-scheduler");
  placement_case c(p, {node("n1"), node("n2"), node("n3"), node("n4")});
  c.r.replica_nodes = {{"n1", "n2"}, {"n2", "n3"}};
  c.used = {{"n1", {4000, 8 * gib}}, {"n2", {1000, 2 * gib}}, {"n3", {2000, 4 * gib}}, {"n4", {3000, 1 * gib}}};
  BOOST_TEST(place_pod(c.r).node == "n2");
  // Equal allocations: the first node by name (kube-scheduler draws among the tied).
  c.used.clear();
  BOOST_TEST(place_pod(c.r).node == "n1");
  auto named = pod("my-scheduler");
  c.r.pod = &named;
  c.used = {{"n1", {4000, 8 * gib}}};
  BOOST_TEST(place_pod(c.r).node == "n2");
}

BOOST_AUTO_TEST_CASE(stork_passes_over_replica_nodes_the_pod_cannot_use) {
  auto p = pod("stork");
  auto cordoned = node("n2");
  cordoned["spec"]["unschedulable"] = true;
  auto tainted = node("n1");
  tainted["spec"]["taints"] = json::array({{{"key", "dedicated"}, {"value", "vms"}, {"effect", "NoSchedule"}}});
  placement_case c(p, {tainted, cordoned, node("n3"), node("n4")});
  c.r.replica_nodes = {{"n1", "n2", "n3"}};
  c.used["n4"] = {0, 0};
  BOOST_TEST(place_pod(c.r).node == "n3");
  // No replica node left: the least allocated of the others (RescheduledOffReplica).
  c.used["n3"] = {0, 15 * gib + gib / 2};
  auto d = place_pod(c.r);
  BOOST_TEST(d.node == "n4");
  BOOST_TEST(d.scores.count("n3") == 0u); // Insufficient memory
}

BOOST_AUTO_TEST_CASE(stork_scores_a_replicas_zone_above_other_zones) {
  auto p = pod("stork");
  placement_case c(p, {node("n1", "zone-a"), node("n2", "zone-a"), node("n3", "zone-b")});
  c.r.replica_nodes = {{"n1"}};
  auto cordoned = node("n1", "zone-a");
  cordoned["spec"]["unschedulable"] = true;
  c.nodes[0] = cordoned;
  c.used["n2"] = {4000, 8 * gib}; // busier, but beside the replica
  auto d = place_pod(c.r);
  BOOST_TEST(d.node == "n2");
  BOOST_TEST(stork_score(c.nodes[1], c.r.replica_nodes, {{"n1", "zone-a"}, {"n2", "zone-a"}, {"n3", "zone-b"}}) == 25);
  BOOST_TEST(stork_score(c.nodes[2], c.r.replica_nodes, {{"n1", "zone-a"}, {"n2", "zone-a"}, {"n3", "zone-b"}}) == 5);
}

BOOST_AUTO_TEST_CASE(a_volumes_node_affinity_binds_the_pod_to_its_nodes) {
  auto p = pod("default-scheduler");
  placement_case c(p, {node("n1"), node("n2"), node("n3")});
  json expr = {{"key", "kubernetes.io/hostname"}, {"operator", "In"}, {"values", {"n3"}}};
  c.r.volume_affinities.push_back(json::array({{{"matchExpressions", json::array({expr})}}}));
  c.used["n3"] = {6000, 12 * gib};
  BOOST_TEST(place_pod(c.r).node == "n3");
  c.used["n3"] = {0, 16 * gib};
  auto d = place_pod(c.r);
  BOOST_TEST(d.node.empty());
  BOOST_TEST(d.message == "0/3 nodes are available: 1 Insufficient memory, 2 node(s) had volume node affinity conflict.");
}

BOOST_AUTO_TEST_CASE(nowhere_to_go_is_said_as_kube_scheduler_says_it) {
  auto p = pod("stork");
  auto a = node("n1"), b = node("n2");
  a["spec"]["unschedulable"] = true;
  b["spec"]["unschedulable"] = true;
  placement_case c(p, {a, b});
  auto d = place_pod(c.r);
  BOOST_TEST(d.node.empty());
  BOOST_TEST(d.message == "0/2 nodes are available: 2 node(s) were unschedulable.");
}

BOOST_AUTO_TEST_SUITE_END()

namespace schedopt::test {

namespace {

/// Scenario pods only in StatefulSets (replacements keep their names), all misplaced,
/// no VMIs (a node's allocation is its pods'), `scheduler` for every workload.
sim_process& placement_sim(bool stork) {
  static sim_process stork_sim({"--nodes", "5", "--vmis", "0", "--pods", "10", "--pods-uncontrolled", "0",
                                "--pods-in-statefulsets", "1", "--pods-default-scheduler", "0", "--pods-misplaced",
                                "1", "--seed", "21", "--pod-start-delay", "200ms", "--pod-recreate-delay", "100ms",
                                "--pod-termination-delay", "200ms"});
  static sim_process default_sim({"--nodes", "5", "--vmis", "0", "--pods", "10", "--pods-uncontrolled", "0",
                                  "--pods-in-statefulsets", "1", "--pods-default-scheduler", "1", "--seed", "22",
                                  "--pod-start-delay", "200ms", "--pod-recreate-delay", "100ms",
                                  "--pod-termination-delay", "200ms"});
  return stork ? stork_sim : default_sim;
}

std::vector<json> scenario_pods(const sim_process& sim) {
  std::vector<json> out;
  for (const auto& ns : {"apps-a", "apps-b"}) {
    auto list = get_json(sim, pods_path(ns));
    for (auto& p : list.value("items", json::array()))
      out.push_back(p);
  }
  return out;
}

/// Evicts `pod` and returns its Ready replacement (same name, new uid).
json replace(const sim_process& sim, const json& pod) {
  auto ns = pod["metadata"]["namespace"].get<std::string>();
  auto name = pod["metadata"]["name"].get<std::string>();
  // The budget must have counted every pod of the set again.
  BOOST_REQUIRE(eventually([&] {
    auto app = pod["metadata"]["labels"]["app"].get<std::string>();
    return pdb_status(sim, ns, app).value("disruptionsAllowed", 0) == 1;
  }));
  auto reply = evict(sim, ns, name);
  BOOST_REQUIRE_MESSAGE(reply.status == 201, reply.body);
  json replacement;
  BOOST_REQUIRE(eventually([&] {
    replacement = get_json(sim, pods_path(ns) + "/" + name);
    return pod_ready(replacement) && replacement["metadata"]["uid"] != pod["metadata"]["uid"];
  }));
  return replacement;
}

int64_t quantity(const std::string& text, int64_t scale) {
  return schedopt::parse_quantity(text, scale).value_or(0);
}

} // namespace

BOOST_AUTO_TEST_SUITE(pod_placement_wire)

BOOST_AUTO_TEST_CASE(a_stork_pods_replacement_lands_on_a_node_holding_the_most_replicas) {
  auto& sim = placement_sim(true);
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto pods = scenario_pods(sim);
  BOOST_REQUIRE_EQUAL(pods.size(), 10u);
  int checked = 0;
  for (auto& p : pods) {
    BOOST_REQUIRE(p["spec"]["schedulerName"] == "stork");
    auto scores = replica_scores(replica_nodes_of(sim, p));
    int best = 0;
    for (auto& [n, s] : scores)
      best = std::max(best, s);
    auto before = p["spec"]["nodeName"].get<std::string>();
    BOOST_TEST_CONTEXT(p["metadata"]["name"].get<std::string>() << " on " << before) {
      BOOST_TEST(scores[before] < best); // --pods-misplaced 1
      auto after = replace(sim, p)["spec"]["nodeName"].get<std::string>();
      BOOST_TEST(scores[after] == best);
    }
    if (++checked == 4)
      break;
  }
}

BOOST_AUTO_TEST_CASE(any_other_pods_replacement_lands_on_the_least_allocated_node) {
  auto& sim = placement_sim(false);
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto nodes = get_json(sim, "/api/v1/nodes").value("items", json::array());
  BOOST_REQUIRE_EQUAL(nodes.size(), 5u);
  auto pods = scenario_pods(sim);
  for (int round = 0; round < 3; ++round) {
    auto& victim = pods.at(static_cast<std::size_t>(round));
    BOOST_REQUIRE(victim["spec"]["schedulerName"] == "default-scheduler");
    auto replacement = replace(sim, victim);
    auto chosen = replacement["spec"]["nodeName"].get<std::string>();
    // What every node had requested when the replacement was placed: every other pod
    // (the evicted one was gone: a StatefulSet waits for it).
    std::map<std::string, std::pair<int64_t, int64_t>> used;
    for (auto& p : scenario_pods(sim)) {
      if (p["metadata"]["uid"] == replacement["metadata"]["uid"])
        continue;
      auto& u = used[p["spec"]["nodeName"].get<std::string>()];
      for (auto& c : p["spec"]["containers"]) {
        u.first += quantity(c.value("/resources/requests/cpu"_json_pointer, std::string{"0"}), 1000);
        u.second += quantity(c.value("/resources/requests/memory"_json_pointer, std::string{"0"}), 1);
      }
    }
    // noderesources LeastAllocated, computed here from the nodes' allocatable.
    auto score = [&](const json& n) {
      auto name = n["metadata"]["name"].get<std::string>();
      auto cpu = quantity(n["status"]["allocatable"]["cpu"], 1000);
      auto mem = quantity(n["status"]["allocatable"]["memory"], 1);
      auto wanted_cpu = used[name].first + 250, wanted_mem = used[name].second + 512 * 1024 * 1024;
      return ((cpu - wanted_cpu) * 100 / cpu + (mem - wanted_mem) * 100 / mem) / 2;
    };
    int64_t best = 0;
    int64_t at_chosen = -1;
    for (auto& n : nodes) {
      best = std::max(best, score(n));
      if (n["metadata"]["name"] == chosen)
        at_chosen = score(n);
    }
    BOOST_TEST_CONTEXT("round " << round << ": " << chosen) { BOOST_TEST(at_chosen == best); }
  }
}

BOOST_AUTO_TEST_CASE(a_pool_failover_moves_the_pods_replicas_too) {
  auto& sim = placement_sim(true);
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto pods = scenario_pods(sim);
  std::map<std::string, std::vector<std::set<std::string>>> before;
  std::string failed;
  for (auto& p : pods) {
    before[p["metadata"]["name"].get<std::string>()] = replica_nodes_of(sim, p);
    for (auto& set : before[p["metadata"]["name"].get<std::string>()])
      if (failed.empty() && !set.empty())
        failed = *set.begin();
  }
  BOOST_REQUIRE(!failed.empty());
  auto reply = http_request(sim, "POST", "/admin/failover?node=" + failed);
  BOOST_REQUIRE_EQUAL(reply.status, 200);
  int moved = 0;
  for (auto& p : pods) {
    auto name = p["metadata"]["name"].get<std::string>();
    auto after = replica_nodes_of(sim, p);
    BOOST_REQUIRE_EQUAL(after.size(), before[name].size());
    for (std::size_t i = 0; i < after.size(); ++i) {
      BOOST_TEST(after[i].count(failed) == 0u);
      BOOST_TEST(after[i].size() == before[name][i].size());
      if (after[i] != before[name][i])
        ++moved;
    }
  }
  BOOST_TEST(moved > 0);
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace schedopt::test
