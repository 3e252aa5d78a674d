// Finding objects of a snapshot by binary search over its store-key order
// (model/sorted_objects.hpp).
#include <boost/test/unit_test.hpp>

#include "k8s/informer_store.hpp"
#include "model/sorted_objects.hpp"

using namespace schedopt;

namespace {

persistent_volume_claim claim(const std::string& ns, const std::string& name) {
  persistent_volume_claim c;
  c.metadata.namespace_ = ns;
  c.metadata.name = name;
  c.volume_name = "pv-" + ns + "-" + name;
  return c;
}

} // namespace

BOOST_AUTO_TEST_SUITE(sorted_objects_suite)

BOOST_AUTO_TEST_CASE(joined_comparison_is_the_joined_strings_comparison) {
  const char* parts[] = {"", "a", "a-b", "a.b", "a0", "ab", "b", "a/", "\xff"};
  for (auto* an : parts)
    for (auto* am : parts)
      for (auto* bn : parts)
        for (auto* bm : parts) {
          auto a = std::string(an) + "/" + am, b = std::string(bn) + "/" + bm;
          int want = a < b ? -1 : a > b ? 1 : 0;
          BOOST_TEST_INFO(a << " vs " << b);
          BOOST_CHECK_EQUAL(compare_joined(an, am, bn, bm), want);
        }
}

BOOST_AUTO_TEST_CASE(finds_in_an_informer_snapshot_and_in_an_unsorted_list) {
  // '-' and '.' sort before '/', so "a-b/x" comes before "a/x" in the store's order.
  k8s::informer_store<persistent_volume_claim> store;
  for (auto ns : {"a", "a-b", "a.b", "b"})
    for (auto name : {"x", "x-1", "y"})
      store.upsert(claim(ns, name));
  sorted_objects<persistent_volume_claim> found{store.snapshot()};
  BOOST_CHECK_EQUAL(found.size(), 12u);
  for (auto ns : {"a", "a-b", "a.b", "b"})
    for (auto name : {"x", "x-1", "y"}) {
      auto* c = found.find(ns, name);
      BOOST_REQUIRE(c);
      BOOST_CHECK_EQUAL(c->volume_name, std::string("pv-") + ns + "-" + name);
    }
  BOOST_CHECK(!found.find("a", "z"));
  BOOST_CHECK(!found.find("", "x"));
  BOOST_CHECK(!found.find("a-b/x", ""));

  auto reversed = store.snapshot();
  std::reverse(reversed.begin(), reversed.end());
  sorted_objects<persistent_volume_claim> sorted_first{reversed};
  BOOST_REQUIRE(sorted_first.find("a.b", "x-1"));
  BOOST_CHECK_EQUAL(sorted_first.find("a.b", "x-1")->volume_name, "pv-a.b-x-1");
}

BOOST_AUTO_TEST_SUITE_END()
