// docs/design.md §2.4–2.5: node scores, verdicts and target nodes.
#include <boost/test/unit_test.hpp>

#include <ostream>

#include "model/placement/scoring.hpp"

namespace schedopt {
// Local to this file (static) so test diagnostics can print verdicts.
static std::ostream& operator<<(std::ostream& out, placement p) {
  return out << to_string(p);
}
} // namespace schedopt

using namespace schedopt;

namespace {

using replica_sets = std::vector<replica_nodes>;
using strings = std::vector<std::string>;

std::map<std::string, node_readiness> all_ready(std::initializer_list<const char*> names) {
  std::map<std::string, node_readiness> out;
  for (const char* n : names)
    out[n] = node_readiness{true, true};
  return out;
}

const auto cluster = all_ready({"n1", "n2", "n3", "n4", "n5"});

} // namespace

BOOST_AUTO_TEST_SUITE(scoring)

BOOST_AUTO_TEST_CASE(hyperconverged_when_current_node_holds_every_volume) {
  auto v = score_placement({{"n1", "n2"}, {"n1", "n3"}}, "n1", cluster);
  BOOST_TEST(v.verdict == placement::hyperconverged);
  BOOST_TEST(v.best_score == 2);
  BOOST_TEST(v.current_score == 2);
  BOOST_TEST(v.best_nodes == strings{"n1"}, boost::test_tools::per_element());
  BOOST_TEST(v.target_nodes.empty());
  BOOST_TEST(!is_candidate(v));
}

BOOST_AUTO_TEST_CASE(hyperconverged_when_tied_with_other_best_nodes) {
  auto v = score_placement({{"n1", "n2"}, {"n1", "n2"}}, "n2", cluster);
  BOOST_TEST(v.verdict == placement::hyperconverged);
  BOOST_TEST(v.best_nodes == (strings{"n1", "n2"}), boost::test_tools::per_element());
  BOOST_TEST(v.target_nodes == strings{"n1"}, boost::test_tools::per_element());
  BOOST_TEST(!is_candidate(v));
}

BOOST_AUTO_TEST_CASE(semi_when_current_node_holds_some_volumes) {
  auto v = score_placement({{"n1", "n2"}, {"n2", "n3"}, {"n3", "n4"}}, "n1", cluster);
  // Scores: n1=1, n2=2, n3=2, n4=1.
  BOOST_TEST(v.verdict == placement::semi);
  BOOST_TEST(v.current_score == 1);
  BOOST_TEST(v.best_score == 2);
  BOOST_TEST(v.best_nodes == (strings{"n2", "n3"}), boost::test_tools::per_element());
  BOOST_TEST(v.target_nodes == (strings{"n2", "n3"}), boost::test_tools::per_element());
  BOOST_TEST(is_candidate(v));
  BOOST_TEST(std::string(to_string(v.verdict)) == "semi");
}

BOOST_AUTO_TEST_CASE(non_when_current_node_holds_nothing) {
  auto v = score_placement({{"n2", "n3"}}, "n1", cluster);
  BOOST_TEST(v.verdict == placement::non);
  BOOST_TEST(v.current_score == 0);
  BOOST_TEST(v.best_score == 1);
  BOOST_TEST(v.target_nodes == (strings{"n2", "n3"}), boost::test_tools::per_element());
  BOOST_TEST(is_candidate(v));
  BOOST_TEST(std::string(to_string(placement::non)) == "non");
  BOOST_TEST(std::string(to_string(placement::hyperconverged)) == "hyperconverged");
}

BOOST_AUTO_TEST_CASE(ties_list_every_best_node_sorted) {
  auto v = score_placement({{"n5", "n3", "n4"}, {"n4", "n5", "n3"}}, "n1", cluster);
  BOOST_TEST(v.best_score == 2);
  BOOST_TEST(v.best_nodes == (strings{"n3", "n4", "n5"}), boost::test_tools::per_element());
  BOOST_TEST(v.target_nodes == (strings{"n3", "n4", "n5"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(cordoned_and_not_ready_best_nodes_are_not_targets) {
  std::map<std::string, node_readiness> nodes{
    {"n1", {true, true}}, {"n2", {true, false}}, {"n3", {false, true}}, {"n4", {true, true}}};
  auto v = score_placement({{"n2", "n3", "n4"}}, "n1", nodes);
  BOOST_TEST(v.verdict == placement::non);
  BOOST_TEST(v.best_nodes == (strings{"n2", "n3", "n4"}), boost::test_tools::per_element());
  BOOST_TEST(v.target_nodes == strings{"n4"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(no_target_when_every_best_node_is_unusable) {
  std::map<std::string, node_readiness> nodes{{"n1", {true, true}}, {"n2", {true, false}}, {"n3", {false, false}}};
  auto v = score_placement({{"n2", "n3"}, {"n2", "n3"}, {"n1"}}, "n1", nodes);
  BOOST_TEST(v.verdict == placement::semi);
  BOOST_TEST(v.target_nodes.empty());
  BOOST_TEST(is_candidate(v)); // still a candidate: the NoTargetNode filter skips it later
}

BOOST_AUTO_TEST_CASE(best_node_unknown_to_the_node_list_is_not_a_target) {
  auto v = score_placement({{"ghost", "n2"}}, "n1", all_ready({"n1", "n2"}));
  BOOST_TEST(v.best_nodes == (strings{"ghost", "n2"}), boost::test_tools::per_element());
  BOOST_TEST(v.target_nodes == strings{"n2"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(current_node_is_never_a_target) {
  // The current node is among the best on a tie but must not be proposed as a target.
  auto v = score_placement({{"n1", "n2"}}, "n1", cluster);
  BOOST_TEST(v.verdict == placement::hyperconverged);
  BOOST_TEST(v.target_nodes == strings{"n2"}, boost::test_tools::per_element());
  auto semi = score_placement({{"n1", "n2"}, {"n2"}}, "n1", cluster);
  BOOST_TEST(semi.verdict == placement::semi);
  BOOST_TEST(semi.target_nodes == strings{"n2"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(no_replicas_anywhere_is_not_a_candidate) {
  // Best score 0: no node is better than the current one, so there is nothing to fix.
  auto v = score_placement({{}, {}}, "n1", cluster);
  BOOST_TEST(v.verdict == placement::hyperconverged);
  BOOST_TEST(v.best_score == 0);
  BOOST_TEST(v.best_nodes.empty());
  BOOST_TEST(v.target_nodes.empty());
  BOOST_TEST(!is_candidate(score_placement({}, "n1", cluster)));
}

BOOST_AUTO_TEST_CASE(many_volumes_one_node_scores_highest) {
  replica_sets sets;
  for (int i = 0; i < 10; ++i)
    sets.push_back({"n3", i % 2 ? "n1" : "n2"});
  auto v = score_placement(sets, "n1", cluster);
  BOOST_TEST(v.best_score == 10);
  BOOST_TEST(v.current_score == 5);
  BOOST_TEST(v.verdict == placement::semi);
  BOOST_TEST(v.target_nodes == strings{"n3"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(normalize_sorts_and_lists_each_node_once) {
  replica_nodes nodes{"n3", "n1", "n3", "n2", "n1"};
  normalize(nodes);
  BOOST_TEST(nodes == (strings{"n1", "n2", "n3"}), boost::test_tools::per_element());
  // A volume normalized scores a node once, however often the driver named it.
  auto v = score_placement({nodes, {"n1"}}, "n2", cluster);
  BOOST_TEST(v.best_score == 2);
  BOOST_TEST(v.best_nodes == strings{"n1"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
