// Node admission for a pod's replacement (pod_admission.hpp): the VM kind's rules and
// words, without KubeVirt's, and the room pods take.
#include <boost/test/unit_test.hpp>

#include "model/kinds/pod_hyperconvergence/pod_admission.hpp"
#include "model/kinds/pod_hyperconvergence/pod_test_world.hpp"

using namespace schedopt;
using namespace schedopt::test::pods;

BOOST_AUTO_TEST_SUITE(pod_admission)

BOOST_AUTO_TEST_CASE(each_rule_refuses_in_the_vm_kinds_words) {
  pod p = make_pod("ns", "db-0", "n1");
  node_usage none;
  BOOST_CHECK_EQUAL(*refusal(p, make_node("n2", false), none), "not Ready");
  BOOST_CHECK_EQUAL(*refusal(p, make_node("n2", true, true), none), "cordoned");
  node n = make_node("n2");
  BOOST_CHECK(!refusal(p, n, none)); // no kubevirt.io/schedulable label needed
  p.constraints.node_selector = {{"disk", "ssd"}};
  BOOST_CHECK_EQUAL(*refusal(p, n, none), "nodeSelector disk=ssd not matched");
  n.metadata.labels["disk"] = "ssd";
  node_selector_term term;
  term.match_expressions.push_back({"zone", "In", {"a"}});
  p.constraints.required_node_affinity = {term};
  BOOST_CHECK_EQUAL(*refusal(p, n, none), "required node affinity not matched");
  n.metadata.labels["zone"] = "a";
  n.taints.push_back({"dedicated", "db", "NoSchedule"});
  BOOST_CHECK_EQUAL(*refusal(p, n, none), "taint dedicated=db:NoSchedule not tolerated");
  p.constraints.tolerations.push_back({"dedicated", "Equal", "db", "NoSchedule"});
  n.allocatable.memory_bytes = 4LL << 30;
  n.allocatable.cpu_millis = 2000;
  p.requests.memory_bytes = 2LL << 30;
  p.requests.cpu_millis = 1500;
  node_usage used{1000, 3LL << 30};
  BOOST_CHECK_EQUAL(*refusal(p, n, used), "1Gi memory free, needs 2Gi");
  used.memory_bytes = 0;
  BOOST_CHECK_EQUAL(*refusal(p, n, used), "1 CPU free, needs 1500m");
  used.cpu_millis = 0;
  BOOST_CHECK(!refusal(p, n, used));
  // A node KubeVirt drains is no concern of a pod's: only its taint's effect counts.
  n.taints.push_back({"kubevirt.io/drain", "draining", "PreferNoSchedule"});
  BOOST_CHECK(!refusal(p, n, used));
}

BOOST_AUTO_TEST_CASE(rules_are_listed_in_the_order_they_apply) {
  std::vector<std::string> names;
  for (const auto& r : pod_admission_rules())
    names.push_back(r.name);
  std::vector<std::string> expected{"ready", "schedulable", "nodeSelector", "requiredNodeAffinity",
                                    "taints", "memory", "cpu"};
  BOOST_CHECK_EQUAL_COLLECTIONS(names.begin(), names.end(), expected.begin(), expected.end());
}

BOOST_AUTO_TEST_CASE(usage_counts_bound_unfinished_pods_terminating_ones_included) {
  auto with = [](const std::string& name, const std::string& node, const std::string& phase,
                 int64_t cpu) {
    pod p = make_pod("ns", name, node, {}, phase);
    p.requests.cpu_millis = cpu;
    return p;
  };
  std::vector<pod> pods{with("a", "n1", "Running", 100), with("b", "n1", "Pending", 200),
                        with("c", "n1", "Succeeded", 400), with("d", "", "Pending", 800),
                        with("e", "n2", "Failed", 1600), with("f", "n2", "Running", 10)};
  pods.back().metadata.deletion_timestamp = "2026-11-30T12:00:00Z";
  auto usage = usage_by_node(share_all(pods));
  BOOST_CHECK_EQUAL(usage["n1"].cpu_millis, 300);
  BOOST_CHECK_EQUAL(usage["n2"].cpu_millis, 10);
  BOOST_CHECK_EQUAL(usage.count(""), 0u);
}

BOOST_AUTO_TEST_CASE(targets_are_the_admissible_best_nodes_other_than_its_own) {
  pod p = make_pod("ns", "db-0", "n1");
  node n2 = make_node("n2"), n3 = make_node("n3", false), n1 = make_node("n1");
  std::map<std::string, const node*> nodes{{"n1", &n1}, {"n2", &n2}, {"n3", &n3}};
  auto t = best_targets(p, {"n3", "n2", "n1", "n9"}, nodes, {});
  BOOST_CHECK(t.nodes == std::vector<std::string>{"n2"});
  BOOST_CHECK(t.refusals == (std::vector<std::string>{"n3: not Ready", "n9: not found"}));
  std::map<std::string, node_usage> usage;
  p.requests.memory_bytes = 1LL << 30;
  p.requests.cpu_millis = 250;
  hold_room(usage, p, {"n2", "n3"});
  BOOST_CHECK_EQUAL(usage["n2"].memory_bytes, 1LL << 30);
  BOOST_CHECK_EQUAL(usage["n3"].cpu_millis, 250);
}

BOOST_AUTO_TEST_SUITE_END()
