// Unit tests of PATCH application and YAML conversion.
#include <boost/test/unit_test.hpp>

#include "sim/patch.hpp"

using nlohmann::json;
using schedopt::sim::apply_patch;
using schedopt::sim::patch_kind;
using schedopt::sim::patch_kind_from_content_type;
using schedopt::sim::yaml_to_json;

BOOST_AUTO_TEST_SUITE(patch_suite)

BOOST_AUTO_TEST_CASE(content_types) {
  BOOST_TEST((patch_kind_from_content_type("application/merge-patch+json") == patch_kind::merge));
  BOOST_TEST((patch_kind_from_content_type("application/json-patch+json; charset=utf-8")
              == patch_kind::json_patch));
  BOOST_TEST((patch_kind_from_content_type("application/strategic-merge-patch+json")
              == patch_kind::strategic_merge));
  BOOST_TEST((patch_kind_from_content_type("application/apply-patch+yaml") == patch_kind::apply));
  BOOST_TEST(!patch_kind_from_content_type("application/json"));
}

BOOST_AUTO_TEST_CASE(merge_patch_sets_and_deletes) {
  json current = {{"metadata", {{"labels", {{"a", "1"}, {"b", "2"}}}}}, {"spec", {{"x", 1}}}};
  auto patched = apply_patch(current, patch_kind::merge,
                             R"({"metadata":{"labels":{"a":null,"c":"3"}},"spec":{"x":2}})");
  BOOST_REQUIRE(patched);
  BOOST_TEST((*patched)["metadata"]["labels"] == (json{{"b", "2"}, {"c", "3"}}));
  BOOST_TEST((*patched)["spec"]["x"].get<int>() == 2);
  auto bad = apply_patch(current, patch_kind::merge, "{not json");
  BOOST_REQUIRE(!bad);
  BOOST_TEST(bad.err().http_status == 400);
}

BOOST_AUTO_TEST_CASE(json_patch_and_failed_test) {
  json current = {{"spec", {{"x", 1}}}};
  auto ok = apply_patch(current, patch_kind::json_patch,
                        R"([{"op":"test","path":"/spec/x","value":1},{"op":"replace","path":"/spec/x","value":5}])");
  BOOST_REQUIRE(ok);
  BOOST_TEST((*ok)["spec"]["x"].get<int>() == 5);
  auto failed = apply_patch(current, patch_kind::json_patch,
                            R"([{"op":"test","path":"/spec/x","value":2}])");
  BOOST_REQUIRE(!failed);
  BOOST_TEST(failed.err().http_status == 422);
  auto not_array = apply_patch(current, patch_kind::json_patch, R"({"op":"add"})");
  BOOST_REQUIRE(!not_array);
  BOOST_TEST(not_array.err().http_status == 400);
}

BOOST_AUTO_TEST_CASE(yaml_scalars_are_typed) {
  auto j = yaml_to_json("a: 1\nb: true\nc: \"1\"\nd: 1.5\ne: null\nf: [x, 'y']\ng: 90s\n");
  BOOST_REQUIRE(j);
  BOOST_TEST((*j)["a"] == json(1));
  BOOST_TEST((*j)["b"] == json(true));
  BOOST_TEST((*j)["c"] == json("1"));
  BOOST_TEST((*j)["d"] == json(1.5));
  BOOST_TEST((*j)["e"].is_null());
  BOOST_TEST((*j)["f"] == (json{"x", "y"}));
  BOOST_TEST((*j)["g"] == json("90s"));
  BOOST_TEST(!yaml_to_json("a: [unclosed"));
}

BOOST_AUTO_TEST_CASE(apply_body_in_yaml_merges) {
  json current = {{"metadata", {{"name", "x"}}}, {"spec", {{"a", 1}, {"b", 2}}}};
  auto applied = apply_patch(current, patch_kind::apply, "spec:\n  b: 3\n");
  BOOST_REQUIRE(applied);
  BOOST_TEST((*applied)["spec"] == (json{{"a", 1}, {"b", 3}}));
}

BOOST_AUTO_TEST_SUITE_END()
