// Event messages name the first few items and say when there are more.
#include <boost/test/unit_test.hpp>

#include "model/name_list.hpp"

using schedopt::first_names;

BOOST_AUTO_TEST_SUITE(name_list)

BOOST_AUTO_TEST_CASE(lists_every_name_up_to_the_limit) {
  BOOST_TEST(first_names({}, 10) == "");
  BOOST_TEST(first_names({"ns/a"}, 10) == "ns/a");
  BOOST_TEST(first_names({"ns/a", "ns/b", "ns/c"}, 3) == "ns/a, ns/b, ns/c");
}

BOOST_AUTO_TEST_CASE(says_there_are_more_past_the_limit) {
  BOOST_TEST(first_names({"a", "b", "c"}, 2) == "a, b, ...");
  BOOST_TEST(first_names({"a", "b"}, 0) == "...");
}

BOOST_AUTO_TEST_SUITE_END()
