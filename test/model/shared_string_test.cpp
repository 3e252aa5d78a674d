// model/shared_string.hpp: one copy per distinct value, compared and ordered as the
// strings it stands for.
#include <algorithm>
#include <map>
#include <thread>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "model/decode.hpp"
#include "model/objects.hpp"
#include "model/shared_string.hpp"

using namespace schedopt;

BOOST_AUTO_TEST_SUITE(shared_string_suite)

BOOST_AUTO_TEST_CASE(equal_values_share_one_copy) {
  std::string a = "worker-node-with-a-long-name-01"; // longer than the small-string buffer
  shared_string x{a}, y{std::string(a)}, z{"worker-node-with-a-long-name-02"};
  BOOST_CHECK(x == y);
  BOOST_CHECK_EQUAL(x.c_str(), y.c_str()); // the same characters, not a copy of them
  BOOST_CHECK(x != z);
  BOOST_CHECK(shared_string{}.empty());
  BOOST_CHECK_EQUAL(sizeof(shared_string), sizeof(void*));
  // Vectors of stored objects move them when they grow.
  static_assert(std::is_nothrow_move_constructible_v<shared_string>);
  static_assert(std::is_nothrow_move_constructible_v<persistent_volume>);
  static_assert(std::is_nothrow_move_constructible_v<virtual_machine_instance>);
}

BOOST_AUTO_TEST_CASE(compares_orders_and_joins_as_its_string) {
  shared_string b{"b"};
  BOOST_CHECK(b == "b");
  BOOST_CHECK(std::string("b") == b);
  BOOST_CHECK(b == std::string_view("b"));
  BOOST_CHECK(b != "a");
  BOOST_CHECK(shared_string{"a"} < b);
  BOOST_CHECK(b < std::string("c"));
  std::vector<shared_string> names{"n3", "n1", "n2", "n1"};
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  BOOST_CHECK((names == std::vector<shared_string>{"n1", "n2", "n3"}));
  BOOST_CHECK_EQUAL(b + "/x", "b/x");
  BOOST_CHECK_EQUAL("x/" + b, "x/b");
  BOOST_CHECK_EQUAL(std::string("ns") + "/" + b, "ns/b");
  std::map<std::string, int> by_name{{"b", 1}};
  BOOST_CHECK_EQUAL(by_name.at(b), 1); // goes where a const std::string& goes
  std::string copied = b;
  BOOST_CHECK_EQUAL(copied, "b");
  std::unordered_set<shared_string> set{b, shared_string{"b"}};
  BOOST_CHECK_EQUAL(set.size(), 1u);
}

BOOST_AUTO_TEST_CASE(threads_interning_the_same_values_agree) {
  // Informers decode pages on several CAF workers at once.
  std::vector<std::vector<shared_string>> seen(4);
  std::vector<std::thread> threads;
  for (auto& out : seen)
    threads.emplace_back([&out] {
      for (int i = 0; i < 2000; ++i)
        out.emplace_back("node-" + std::to_string(i % 50) + "-with-a-long-name");
    });
  for (auto& t : threads)
    t.join();
  for (std::size_t i = 0; i < seen[0].size(); ++i)
    for (auto& other : seen)
      BOOST_CHECK_EQUAL(other[i].c_str(), seen[0][i].c_str());
}

BOOST_AUTO_TEST_CASE(decoded_objects_share_their_namespace_and_node) {
  auto vmi_json = [](const std::string& name) {
    return R"({"metadata":{"name":")" + name
           + R"(","namespace":"tenant-production-virtual-machines"},)"
             R"("status":{"phase":"Running","nodeName":"worker-node-with-a-long-name-07"}})";
  };
  auto a = decode_vmi(vmi_json("a"));
  auto b = decode_vmi(vmi_json("b"));
  BOOST_REQUIRE(a && b);
  BOOST_CHECK_EQUAL(a->metadata.namespace_, "tenant-production-virtual-machines");
  BOOST_CHECK_EQUAL(a->metadata.namespace_.c_str(), b->metadata.namespace_.c_str());
  BOOST_CHECK_EQUAL(a->node_name.c_str(), b->node_name.c_str());
}

BOOST_AUTO_TEST_SUITE_END()
