// model/lru_map: the most recently used entries stay, the least recently used go.
#include <boost/test/unit_test.hpp>

#include <string>

#include "model/lru_map.hpp"

using schedopt::lru_map;

BOOST_AUTO_TEST_SUITE(lru)

BOOST_AUTO_TEST_CASE(keeps_the_most_recently_used_up_to_capacity) {
  lru_map<std::string, int> m(2);
  m.put("a", 1);
  m.put("b", 2);
  BOOST_REQUIRE(m.find("a")); // a is now more recent than b
  m.put("c", 3);              // b goes
  BOOST_CHECK_EQUAL(m.size(), 2u);
  BOOST_CHECK(m.find("b") == nullptr);
  BOOST_CHECK_EQUAL(*m.find("a"), 1);
  BOOST_CHECK_EQUAL(*m.find("c"), 3);
}

BOOST_AUTO_TEST_CASE(put_replaces_and_erase_removes) {
  lru_map<std::string, int> m(4);
  m.put("a", 1);
  m.put("a", 5);
  BOOST_CHECK_EQUAL(m.size(), 1u);
  BOOST_CHECK_EQUAL(*m.find("a"), 5);
  m.erase("a");
  m.erase("never there");
  BOOST_CHECK_EQUAL(m.size(), 0u);
  BOOST_CHECK(m.find("a") == nullptr);
}

BOOST_AUTO_TEST_CASE(erase_if_drops_the_matching_entries_only) {
  lru_map<std::string, int> m(8);
  for (auto key : {"so/a\nStarted", "so/a\nFailed", "so/b\nStarted", "so/ab\nStarted"})
    m.put(key, 1);
  m.erase_if([](const std::string& key) { return key.rfind("so/a\n", 0) == 0; });
  BOOST_CHECK_EQUAL(m.size(), 2u);
  BOOST_CHECK(m.find("so/a\nStarted") == nullptr);
  BOOST_CHECK(m.find("so/b\nStarted") != nullptr);
  BOOST_CHECK(m.find("so/ab\nStarted") != nullptr);
  m.put("so/c\nStarted", 1); // the index still agrees with the order after erasing
  BOOST_CHECK_EQUAL(m.size(), 3u);
}

BOOST_AUTO_TEST_CASE(a_long_run_stays_at_capacity) {
  lru_map<int, int> m(4096);
  for (int i = 0; i < 100000; ++i)
    m.put(i, i);
  BOOST_CHECK_EQUAL(m.size(), 4096u);
  BOOST_CHECK(m.find(100000 - 4096) != nullptr);
  BOOST_CHECK(m.find(100000 - 4097) == nullptr);
}

BOOST_AUTO_TEST_SUITE_END()
