// docs/design.md §3.1 target pinning: fewest schedopt migrations in flight, ties by name.
#include <boost/test/unit_test.hpp>

#include "model/placement/target_choice.hpp"
#include "model/ownership_labels.hpp"

using namespace schedopt;

namespace {

virtual_machine_instance_migration vmim(const std::string& target, const std::string& phase,
                                        bool ours = true) {
  virtual_machine_instance_migration m;
  if (ours)
    m.metadata.labels[labels::managed_by] = labels::managed_by_value;
  if (!target.empty())
    m.added_node_selector[labels::hostname] = target;
  m.phase = phase;
  return m;
}

} // namespace

BOOST_AUTO_TEST_SUITE(target_choice)

BOOST_AUTO_TEST_CASE(choice_table) {
  struct row {
    std::vector<std::string> targets;
    std::map<std::string, int64_t> load;
    std::optional<std::string> expected;
  };
  const std::vector<row> rows = {
    {{}, {}, std::nullopt},
    {{"n2"}, {{"n2", 9}}, "n2"},
    {{"n2", "n1", "n3"}, {}, "n1"},                              // all idle: smallest name
    {{"n1", "n2", "n3"}, {{"n1", 2}, {"n2", 1}, {"n3", 1}}, "n2"}, // tie n2/n3 -> n2
    {{"n1", "n2"}, {{"n1", 1}}, "n2"},                           // absent counts as 0
    {{"b", "a"}, {{"a", 3}, {"b", 3}}, "a"},
  };
  for (const auto& r : rows) {
    auto got = choose_target(r.targets, r.load);
    BOOST_CHECK(got == r.expected);
  }
}

BOOST_AUTO_TEST_CASE(counts_only_non_final_schedopt_migrations) {
  std::vector<virtual_machine_instance_migration> ms = {
    vmim("n1", "Running"), vmim("n1", "Scheduling"), vmim("n2", ""),
    vmim("n2", "Succeeded"), vmim("n3", "Failed"), vmim("n3", "Running", false),
    vmim("", "Running")};
  auto load = in_flight_by_target(ms);
  BOOST_CHECK_EQUAL(load.size(), 2u);
  BOOST_CHECK_EQUAL(load.at("n1"), 2);
  BOOST_CHECK_EQUAL(load.at("n2"), 1);
}


// docs/design.md §2.5 target sets: best level first, else the next level above the current
// node's; refusals per best node, a missing node included.
BOOST_AUTO_TEST_CASE(admissible_targets_by_score_level) {
  auto make = [](const std::string& name, bool ready = true) {
    node n;
    n.metadata.name = name;
    n.metadata.labels["kubevirt.io/schedulable"] = "true";
    n.ready = ready;
    return n;
  };
  std::vector<node> cluster = {make("a"), make("b", false), make("c"), make("d"), make("home")};
  std::map<std::string, const node*> nodes;
  for (const auto& n : cluster)
    nodes[n.metadata.name] = &n;
  virtual_machine_instance vmi;
  vmi.node_name = "home";
  // Scores: a 3, b 3, ghost 3, c 2, d 1, home 1.
  std::vector<replica_nodes> replicas = {
    {"a", "b", "ghost", "c", "d"}, {"a", "b", "ghost", "c", "home"}, {"a", "b", "ghost"}};

  auto t = admissible_targets(vmi, replicas, nodes, {});
  BOOST_CHECK(t.nodes == std::vector<std::string>{"a"});
  BOOST_CHECK_EQUAL(t.score, 3);
  BOOST_CHECK(t.best_refusals == (std::vector<std::string>{"b: not Ready", "ghost: not found"}));

  cluster[0].unschedulable = true; // a cordoned: fall back to c (score 2)
  t = admissible_targets(vmi, replicas, nodes, {});
  BOOST_CHECK(t.nodes == std::vector<std::string>{"c"});
  BOOST_CHECK_EQUAL(t.score, 2);
  BOOST_CHECK_EQUAL(no_target_detail(t.best_refusals),
                    "a: cordoned; b: not Ready; ghost: not found");

  cluster[2].ready = false; // c gone too; d scores what home scores: no target
  t = admissible_targets(vmi, replicas, nodes, {});
  BOOST_CHECK(t.nodes.empty());
  BOOST_CHECK_EQUAL(t.score, 0);
  BOOST_CHECK_EQUAL(t.best_refusals.size(), 3u); // only best nodes are reported

  // Room: usage by node name.
  cluster[0].unschedulable = false;
  cluster[0].allocatable.memory_bytes = int64_t{4} << 30;
  vmi.requests.memory_bytes = int64_t{3} << 30;
  t = admissible_targets(vmi, replicas, nodes, {{"a", node_usage{0, int64_t{2} << 30}}});
  BOOST_CHECK(t.nodes.empty());
  BOOST_CHECK_EQUAL(t.best_refusals.front(),
                    "a: 2Gi memory free, needs 3Gi + 274Mi virt-launcher overhead");
}

BOOST_AUTO_TEST_SUITE_END()
