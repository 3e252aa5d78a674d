// Finding objects of a snapshot by binary search over its store-key order
// (model/sorted_objects.hpp).
#include <cstdio>

#include <boost/test/unit_test.hpp>

#include "k8s/informer_store.hpp"
#include "model/hashed_names.hpp"
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
  auto first = store.objects().front();
  BOOST_CHECK(reversed.shares_with(store.objects()));
  std::reverse(reversed.edit().begin(), reversed.edit().end());
  BOOST_CHECK(!reversed.shares_with(store.objects())); // the edit copied the list
  BOOST_CHECK(store.objects().front() == first);
  sorted_objects<persistent_volume_claim> sorted_first{reversed};
  BOOST_REQUIRE(sorted_first.find("a.b", "x-1"));
  BOOST_CHECK_EQUAL(sorted_first.find("a.b", "x-1")->volume_name, "pv-a.b-x-1");
}

// find_near searches outward from any hint and finds what find() finds: every key and
// every gap of a 300-object snapshot, from hints before, at, after and far from it.
BOOST_AUTO_TEST_CASE(find_near_finds_what_find_finds_from_any_hint) {
  k8s::informer_store<persistent_volume_claim> store;
  for (auto ns : {"a", "a-b", "b"})
    for (int i = 0; i < 100; i += 1)
      store.upsert(claim(ns, "c" + std::to_string(1000 + 2 * i))); // odd numbers are gaps
  sorted_objects<persistent_volume_claim> found{store.snapshot()};
  for (auto ns : {"a", "a-b", "b", "", "a-a", "c"})
    for (int k = 999; k <= 1200; k += 7)
      for (std::size_t start : {std::size_t{0}, std::size_t{1}, std::size_t{150},
                                std::size_t{299}, std::size_t{5000}}) {
        auto name = "c" + std::to_string(k);
        std::size_t hint = start;
        BOOST_TEST_INFO(ns << "/" << name << " from " << start);
        BOOST_CHECK_EQUAL(found.find_near(hint, ns, name), found.find(ns, name));
        BOOST_CHECK_LE(hint, found.size());
        std::size_t again = hint; // from where it landed, the same answer
        BOOST_CHECK_EQUAL(found.find_near(again, ns, name), found.find(ns, name));
        BOOST_CHECK_EQUAL(again, hint);
      }
  sorted_objects<persistent_volume_claim> none;
  std::size_t hint = 3;
  BOOST_CHECK(!none.find_near(hint, "a", "x"));
}

BOOST_AUTO_TEST_CASE(name_hash_index_finds_cluster_scoped_objects_by_name) {
  shared_list<persistent_volume> pvs;
  // Text names and provisioned ones ("pvc-<uid>", kept as the uid's bytes), mixed.
  auto name_of = [](int i) {
    if (i % 2 == 0)
      return "pvc-" + std::to_string(i * 7919 % 1000);
    char uid[40];
    std::snprintf(uid, sizeof uid, "%08x-0000-4000-8000-%012x", i * 7919 % 1000, i);
    return "pvc-" + std::string(uid);
  };
  for (int i = 0; i < 200; ++i) {
    persistent_volume p;
    p.metadata.name = name_of(i);
    pvs.push_back(std::make_shared<const persistent_volume>(p));
  }
  persistent_volume namespaced; // not cluster-scoped: never found by name alone
  namespaced.metadata.namespace_ = "ns";
  namespaced.metadata.name = "pvc-namespaced";
  pvs.push_back(std::make_shared<const persistent_volume>(namespaced));
  sorted_objects<persistent_volume> sorted{pvs};
  name_hash_index<persistent_volume> index{sorted};
  for (int i = 0; i < 200; ++i) {
    auto name = name_of(i);
    auto pv = index.find_shared(pv_name(name));
    BOOST_REQUIRE(pv);
    BOOST_CHECK_EQUAL(pv->metadata.name, name);
    BOOST_CHECK_EQUAL(pv.get(), sorted.find("", name));
  }
  BOOST_CHECK(!index.find_shared(pv_name("pvc-1001")));
  BOOST_CHECK(!index.find_shared(pv_name("pvc-00000000-0000-4000-8000-000000001001")));
  BOOST_CHECK(!index.find_shared(pv_name("pvc-namespaced")));
  BOOST_CHECK(!index.find_shared(pv_name("")));
}

// The px match asks for every PV of a handle, lowest position first, and most names it
// asks for are not there at all.
BOOST_AUTO_TEST_CASE(hashed_names_visit_every_equal_name_in_position_order) {
  std::vector<std::string> names;
  for (int i = 0; i < 1000; ++i)
    names.push_back("vol-" + std::to_string(i % 300)); // each name at 3 or 4 positions
  names.push_back("");
  auto name_at = [&](std::size_t i) -> std::optional<std::string_view> {
    if (i == 7)
      return std::nullopt; // not indexed
    return std::string_view(names[i]);
  };
  hashed_names index(names.size(), name_at);
  std::vector<std::size_t> seen;
  index.for_each("vol-7", name_at, [&](std::size_t i) {
    seen.push_back(i);
    return true;
  });
  BOOST_CHECK((seen == std::vector<std::size_t>{307, 607, 907})); // 7 is not indexed
  BOOST_CHECK_EQUAL(*index.find("vol-299", name_at), 299u);
  BOOST_CHECK_EQUAL(*index.find("", name_at), 1000u);
  BOOST_CHECK(!index.find("vol-300", name_at));
  seen.clear();
  index.for_each("vol-8", name_at, [&](std::size_t i) {
    seen.push_back(i);
    return false; // the first is enough
  });
  BOOST_CHECK((seen == std::vector<std::size_t>{8}));
  BOOST_CHECK(!hashed_names().find("vol-1", name_at));
}

BOOST_AUTO_TEST_SUITE_END()
