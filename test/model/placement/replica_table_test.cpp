// A driver's answer by position holds each distinct replica set once.
#include <boost/test/unit_test.hpp>

#include "model/placement/replica_table.hpp"
#include "model/placement/scoring.hpp"

using namespace schedopt;

BOOST_AUTO_TEST_SUITE(replica_table_suite)

BOOST_AUTO_TEST_CASE(each_position_reads_its_own_nodes_and_equal_sets_are_held_once) {
  replica_table t;
  t.push_back({"n1", "n2"});
  t.push_back({});
  t.push_back({"n2", "n1"}); // another order is another set until normalized
  t.push_back({"n1", "n2"});
  BOOST_REQUIRE_EQUAL(t.size(), 4u);
  BOOST_CHECK_EQUAL(t.distinct_sets(), 3u);
  BOOST_CHECK((t[0] == replica_nodes{"n1", "n2"}));
  BOOST_CHECK(t[1].empty());
  BOOST_CHECK((t[2] == replica_nodes{"n2", "n1"}));
  BOOST_CHECK_EQUAL(&t[0], &t[3]);
}

BOOST_AUTO_TEST_CASE(a_sealed_table_reads_the_same_and_normalizing_its_sets_serves_every_position) {
  replica_table t;
  t.push_back({"n3", "n1", "n3"});
  t.push_back({"n2"});
  t.push_back({"n3", "n1", "n3"});
  t.seal();
  for (auto& nodes : t.sets())
    normalize(nodes);
  BOOST_CHECK((t[0] == replica_nodes{"n1", "n3"}));
  BOOST_CHECK((t[2] == replica_nodes{"n1", "n3"}));
  BOOST_CHECK((t[1] == replica_nodes{"n2"}));
  t.push_back({"n2"}); // sealed: a later set is held again, still read right
  BOOST_CHECK((t[3] == replica_nodes{"n2"}));
}

BOOST_AUTO_TEST_SUITE_END()
