// Unit tests of the managedFields record, server-side apply's ownership, and the typed
// list items' apiVersion/kind cut.
#include <boost/test/unit_test.hpp>

#include "sim/field_sets.hpp"
#include "sim/managed_fields.hpp"
#include "sim/type_meta_text.hpp"

using nlohmann::json;
using namespace schedopt::sim;

namespace {

field_writer writer(const std::string& manager, const std::string& subresource = "") {
  return {manager, "v1", subresource, true};
}

json config_map(json data) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}}}, {"data", std::move(data)}};
}

std::vector<std::string> managers(const json& object) {
  std::vector<std::string> out;
  for (const auto& e : object["metadata"].value("managedFields", json::array()))
    out.push_back(e["manager"].get<std::string>() + " " + e["operation"].get<std::string>());
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(managed_fields_suite)

BOOST_AUTO_TEST_CASE(the_manager_is_the_field_manager_or_the_user_agent) {
  BOOST_TEST(manager_of("mine", "kubectl/v1.37.2 (linux/amd64)") == "mine");
  BOOST_TEST(manager_of("", "kubectl/v1.37.2 (linux/amd64)") == "kubectl");
  BOOST_TEST(manager_of("", "") == "unknown");
}

BOOST_AUTO_TEST_CASE(fields_v1_marks_members_with_members_under_them) {
  field_set set = {{"data"}, {"data", "a"}, {"metadata", "labels", "x"}};
  auto encoded = encode_fields_v1(set);
  BOOST_TEST(encoded == json::parse(R"({"f:data":{".":{},"f:a":{}},"f:metadata":{"f:labels":{"f:x":{}}}})"));
  BOOST_TEST((decode_fields_v1(encoded) == set));
}

BOOST_AUTO_TEST_CASE(an_update_takes_what_it_changed_and_status_stays_out) {
  auto live = config_map({{"a", "1"}});
  record_update(live, json::object(), writer("creator"));
  BOOST_TEST((managers(live) == std::vector<std::string>{"creator Update"}));
  auto next = live;
  next["data"]["a"] = "2";
  next["status"] = {{"x", 1}}; // the main resource of a type with /status owns no status
  record_update(next, live, writer("editor"));
  // The creator keeps the data map it added; the editor took data.a.
  BOOST_TEST((managers(next) == std::vector<std::string>{"creator Update", "editor Update"}));
  auto creator = decode_fields_v1(next["metadata"]["managedFields"][0]["fieldsV1"]);
  BOOST_TEST((creator == field_set{{"data"}}));
  auto fields = decode_fields_v1(next["metadata"]["managedFields"][1]["fieldsV1"]);
  BOOST_TEST(fields.count({"data", "a"}) == 1u);
  BOOST_TEST(fields.count({"status", "x"}) == 0u);
}

BOOST_AUTO_TEST_CASE(a_no_op_update_keeps_the_record) {
  auto live = config_map({{"a", "1"}});
  record_update(live, json::object(), writer("creator"));
  auto same = live;
  same["metadata"].erase("managedFields");
  record_update(same, live, writer("editor"));
  BOOST_TEST(same["metadata"]["managedFields"] == live["metadata"]["managedFields"]);
}

BOOST_AUTO_TEST_CASE(apply_conflicts_prunes_and_forces) {
  auto a = apply_configuration(json::object(), config_map({{"owner", "a"}, {"extra", "x"}}), writer("a"), false);
  BOOST_REQUIRE(a.has_value());
  auto conflict = apply_configuration(*a, config_map({{"owner", "b"}}), writer("b"), false);
  BOOST_REQUIRE(!conflict.has_value());
  BOOST_TEST(conflict.err().http_status == 409);
  BOOST_TEST(conflict.err().message.rfind("Apply failed with 1 conflict: conflict with \"a\": .data.owner", 0) == 0);
  // The same value is no conflict: both own it.
  auto shared = apply_configuration(*a, config_map({{"owner", "a"}}), writer("b"), false);
  BOOST_REQUIRE(shared.has_value());
  BOOST_TEST(managers(*shared).size() == 2u);
  // a no longer applies "extra", which nobody else owns: it goes; "owner" b still owns.
  auto pruned = apply_configuration(*shared, config_map({{"other", "y"}}), writer("a"), false);
  BOOST_REQUIRE(pruned.has_value());
  BOOST_TEST((*pruned)["data"] == (json{{"owner", "a"}, {"other", "y"}}));
  auto forced = apply_configuration(*pruned, config_map({{"owner", "b"}}), writer("b"), true);
  BOOST_REQUIRE(forced.has_value());
  BOOST_TEST((*forced)["data"]["owner"] == "b");
}

BOOST_AUTO_TEST_CASE(typed_list_items_lose_api_version_and_kind) {
  std::string text = R"({"apiVersion":"v1","data":{"kind":"x"},"kind":"ConfigMap","metadata":{"name":"c"}})";
  std::string out;
  append_without(out, text, type_meta_ranges(text));
  BOOST_TEST(out == R"({"data":{"kind":"x"},"metadata":{"name":"c"}})");
  text = R"({"data":{},"kind":"ConfigMap"})";
  out.clear();
  append_without(out, text, type_meta_ranges(text));
  BOOST_TEST(out == R"({"data":{}})");
  text = R"({"apiVersion":"v1","kind":"X"})";
  out.clear();
  append_without(out, text, type_meta_ranges(text));
  BOOST_TEST(out == "{}");
}

BOOST_AUTO_TEST_SUITE_END()
