// The informer store's relist diff.
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "k8s/informer_store.hpp"

using schedopt::virtual_machine_instance;

namespace {

virtual_machine_instance vmi(const std::string& ns, const std::string& name, const std::string& rv) {
  virtual_machine_instance v;
  v.metadata.namespace_ = ns;
  v.metadata.name = name;
  v.metadata.resource_version = rv;
  return v;
}

} // namespace

BOOST_AUTO_TEST_CASE(informer_store_relist_diff) {
  schedopt::k8s::informer_store<virtual_machine_instance> store;
  auto first = store.replace({vmi("a", "x", "1"), vmi("a", "y", "2"), vmi("b", "x", "3")});
  BOOST_CHECK_EQUAL(first.added.size(), 3u);
  auto second = store.replace({vmi("a", "y", "2"), vmi("b", "x", "7"), vmi("c", "z", "8")});
  BOOST_REQUIRE_EQUAL(second.deleted.size(), 1u);
  BOOST_CHECK_EQUAL(second.deleted[0].metadata.name, "x");
  BOOST_REQUIRE_EQUAL(second.updated.size(), 1u);
  BOOST_CHECK_EQUAL(second.updated[0].first.metadata.resource_version, "3");
  BOOST_CHECK_EQUAL(second.updated[0].second.metadata.resource_version, "7");
  BOOST_REQUIRE_EQUAL(second.added.size(), 1u);
  BOOST_CHECK_EQUAL(second.added[0].metadata.namespace_, "c");
  auto snap = store.snapshot();
  BOOST_REQUIRE_EQUAL(snap.size(), 3u);
  BOOST_CHECK_EQUAL(snap[0]->metadata.namespace_, "a"); // sorted by namespace/name
  BOOST_CHECK(store.erase("a/y") != nullptr);
  BOOST_CHECK(store.erase("a/y") == nullptr);
  BOOST_CHECK(store.upsert(vmi("a", "q", "9")) == nullptr);
  BOOST_CHECK(store.upsert(vmi("a", "q", "10"))->metadata.resource_version == "9");
}

// Copy-on-write: a snapshot shares the stored objects and keeps the versions it saw.
BOOST_AUTO_TEST_CASE(informer_store_snapshot_shares_and_keeps_its_versions) {
  schedopt::k8s::informer_store<virtual_machine_instance> store;
  store.replace({vmi("a", "x", "1"), vmi("a", "y", "2")});
  auto before = store.snapshot();
  BOOST_CHECK_EQUAL(before[0].get(), store.find("a/x")); // the same object, not a copy
  BOOST_CHECK(before.shares_with(store.objects()));       // and the same list
  store.upsert(vmi("a", "x", "5"));
  store.erase("a/y");
  BOOST_CHECK_EQUAL(before[0]->metadata.resource_version, "1");
  BOOST_CHECK_EQUAL(before[1]->metadata.name, "y");
  BOOST_CHECK_EQUAL(store.find("a/x")->metadata.resource_version, "5");
  BOOST_CHECK_EQUAL(store.snapshot().size(), 1u);
}

BOOST_AUTO_TEST_CASE(informer_store_diff_only_for_interesting_keys) {
  schedopt::k8s::informer_store<virtual_machine_instance> store;
  auto only_b_x = [](const std::string& key) { return key == "b/x"; };
  auto first = store.replace({vmi("a", "x", "1"), vmi("b", "x", "3")}, only_b_x);
  BOOST_REQUIRE_EQUAL(first.added.size(), 1u);
  BOOST_CHECK_EQUAL(first.added[0].metadata.namespace_, "b");
  BOOST_CHECK_EQUAL(store.size(), 2u); // the store itself holds everything
  auto nobody = [](const std::string&) { return false; };
  auto second = store.replace({vmi("b", "x", "4")}, nobody);
  BOOST_CHECK(second.added.empty() && second.updated.empty() && second.deleted.empty());
  BOOST_CHECK_EQUAL(store.size(), 1u);
  BOOST_REQUIRE(store.find("b/x") != nullptr);
  BOOST_CHECK_EQUAL(store.find("b/x")->metadata.resource_version, "4");
}

BOOST_AUTO_TEST_CASE(older_version_compares_integer_versions_only) {
  using schedopt::k8s::older_version;
  BOOST_CHECK(older_version("9", "10"));     // numbers, not strings: "9" > "10" as text
  BOOST_CHECK(!older_version("10", "9"));
  BOOST_CHECK(!older_version("10", "10"));
  BOOST_CHECK(!older_version("abc", "10")); // opaque versions are never called older
  BOOST_CHECK(!older_version("9", "x"));
  BOOST_CHECK(!older_version("", "10"));
  BOOST_CHECK(!older_version("9 ", "10"));
}

// The objects are their own keys: the store is in the order of their "<ns>/<name>"
// strings ('-' and '.' sort before '/'), and a later duplicate in a list wins.
BOOST_AUTO_TEST_CASE(informer_store_orders_by_the_joined_key) {
  schedopt::k8s::informer_store<virtual_machine_instance> store;
  store.replace({vmi("a", "x", "1"), vmi("a-b", "x", "2"), vmi("a.b", "y", "3"),
                 vmi("a", "x", "4"), vmi("", "cluster", "5")});
  std::vector<std::string> keys;
  for (const auto& obj : store.snapshot())
    keys.push_back(schedopt::k8s::store_key(*obj));
  auto sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  BOOST_CHECK(keys == sorted);
  BOOST_CHECK_EQUAL(keys.size(), 4u);
  BOOST_CHECK_EQUAL(store.find("a/x")->metadata.resource_version, "4");
  BOOST_CHECK(store.find("/cluster") != nullptr);
  BOOST_CHECK(store.find("a-b/x") != nullptr);
  BOOST_CHECK(store.find("a") == nullptr);
  BOOST_CHECK(store.upsert(vmi("a-b", "x", "6"))->metadata.resource_version == "2");
  BOOST_CHECK_EQUAL(store.find_shared("a-b/x")->metadata.resource_version, "6");
  BOOST_CHECK_EQUAL(store.size(), 4u);
}
