// The simulator's structural-schema enforcement: every rule accepted and refused with
// kube-apiserver's field paths and texts, pruning, ratcheting and the 422 Status shape.
#include <boost/test/unit_test.hpp>

#include "crd_schema_lookup.hpp"
#include "sim/structural_schema.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using json = nlohmann::json;

namespace {

crd_schema schema_of(const json& openapi) {
  auto root = structural_from_json(openapi);
  BOOST_REQUIRE(root);
  return crd_schema{"example.io", "v1", "Widget", std::move(*root)};
}

/// A CR with `spec` judged by a schema whose spec.x is `x`; the causes' "field: message".
std::vector<std::string> judge(const json& x_schema, const json& x_value) {
  auto schema = schema_of({{"type", "object"},
                           {"properties", {{"spec", {{"type", "object"}, {"properties", {{"x", x_schema}}}}}}}});
  json obj = {{"apiVersion", "example.io/v1"}, {"kind", "Widget"}, {"metadata", {{"name", "w"}}},
              {"spec", {{"x", x_value}}}};
  std::vector<std::string> out;
  for (auto& e : validate_custom_resource(schema, obj, nullptr, false))
    out.push_back(e.reason + " " + e.text());
  return out;
}

const crd_schema& schedopt_schema() {
  static const crd_schema schema =
      testing::crd_schema_of_kind(std::string{SCHEDOPT_SOURCE_DIR} + "/deploy/crd", "SchedulingOptimization");
  return schema;
}

json request(const json& hyperconvergence) {
  return {{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
          {"kind", "SchedulingOptimization"},
          {"metadata", {{"name", "req"}}},
          {"spec", {{"vmHyperconvergence", hyperconvergence}}}};
}

using strings = std::vector<std::string>;

} // namespace

BOOST_AUTO_TEST_SUITE(structural_schema_rules)

BOOST_AUTO_TEST_CASE(types) {
  BOOST_TEST(judge({{"type", "string"}}, "a").empty());
  BOOST_TEST(judge({{"type", "string"}}, 3)
             == strings{"FieldValueTypeInvalid spec.x: Invalid value: \"integer\": spec.x in body must "
                        "be of type string: \"integer\""});
  BOOST_TEST(judge({{"type", "integer"}}, 3).empty());
  BOOST_TEST(judge({{"type", "integer"}}, 3.0).empty()); // a float that is an integer passes
  BOOST_TEST(judge({{"type", "integer"}}, 1.5)
             == strings{"FieldValueTypeInvalid spec.x: Invalid value: \"number\": spec.x in body must "
                        "be of type integer: \"number\""});
  BOOST_TEST(judge({{"type", "number"}}, 3).empty());
  BOOST_TEST(judge({{"type", "boolean"}}, true).empty());
  BOOST_TEST(judge({{"type", "boolean"}}, "yes")
             == strings{"FieldValueTypeInvalid spec.x: Invalid value: \"string\": spec.x in body must "
                        "be of type boolean: \"string\""});
  BOOST_TEST(judge({{"type", "array"}}, json::array()).empty());
  BOOST_TEST(judge({{"type", "array"}}, json::object())
             == strings{"FieldValueTypeInvalid spec.x: Invalid value: \"object\": spec.x in body must "
                        "be of type array: \"object\""});
  BOOST_TEST(judge({{"type", "object"}}, json::object()).empty());
  // A format kube-openapi keeps is checked first: a bool for an int64 says so oddly.
  BOOST_TEST(judge({{"type", "integer"}, {"format", "int64"}}, true)
             == strings{"FieldValueTypeInvalid spec.x: Invalid value: \"\": spec.x in body must be of "
                        "type int64: \"\""});
  BOOST_TEST(judge({{"type", "string"}, {"format", "date-time"}}, "2026-01-02T03:04:05Z").empty());
  BOOST_TEST(judge({{"type", "string"}, {"format", "date-time"}}, "yesterday")
             == strings{"FieldValueTypeInvalid spec.x: Invalid value: \"yesterday\": spec.x in body "
                        "must be of type date-time: \"yesterday\""});
}

BOOST_AUTO_TEST_CASE(nullable_and_int_or_string) {
  BOOST_TEST(judge({{"type", "string"}, {"nullable", true}}, nullptr).empty());
  BOOST_TEST(judge({{"type", "string"}}, nullptr)
             == strings{"FieldValueTypeInvalid spec.x: Invalid value: \"null\": spec.x in body must be "
                        "of type string: \"null\""});
  BOOST_TEST(judge({{"x-kubernetes-int-or-string", true}}, 3).empty());
  BOOST_TEST(judge({{"x-kubernetes-int-or-string", true}}, "50%").empty());
  BOOST_TEST(judge({{"x-kubernetes-int-or-string", true}}, true)
             == strings{"FieldValueTypeInvalid spec.x: Invalid value: \"boolean\": spec.x in body must "
                        "be of type integer,string: \"boolean\""});
}

BOOST_AUTO_TEST_CASE(bounds) {
  json min = {{"type", "integer"}, {"minimum", 1}};
  BOOST_TEST(judge(min, 1).empty());
  BOOST_TEST(judge(min, 0)
             == strings{"FieldValueInvalid spec.x: Invalid value: 0: spec.x in body should be greater "
                        "than or equal to 1"});
  json exclusive_min = {{"type", "integer"}, {"minimum", 1}, {"exclusiveMinimum", true}};
  BOOST_TEST(judge(exclusive_min, 2).empty());
  BOOST_TEST(judge(exclusive_min, 1)
             == strings{"FieldValueInvalid spec.x: Invalid value: 1: spec.x in body should be greater "
                        "than 1"});
  json max = {{"type", "number"}, {"maximum", 2.5}};
  BOOST_TEST(judge(max, 2.5).empty());
  BOOST_TEST(judge(max, 3.25)
             == strings{"FieldValueInvalid spec.x: Invalid value: 3.25: spec.x in body should be less "
                        "than or equal to 2.5"});
  json exclusive_max = {{"type", "integer"}, {"maximum", 10}, {"exclusiveMaximum", true}};
  BOOST_TEST(judge(exclusive_max, 9).empty());
  BOOST_TEST(judge(exclusive_max, 10)
             == strings{"FieldValueInvalid spec.x: Invalid value: 10: spec.x in body should be less "
                        "than 10"});
}

BOOST_AUTO_TEST_CASE(strings_length_pattern_enum) {
  json max = {{"type", "string"}, {"maxLength", 3}};
  BOOST_TEST(judge(max, "abc").empty());
  BOOST_TEST(judge(max, "\xc3\xa9\xc3\xa9\xc3\xa9").empty()); // runes, not bytes
  BOOST_TEST(judge(max, "abcd")
             == strings{"FieldValueTooLong spec.x: Too long: may not be more than 3 bytes"});
  json min = {{"type", "string"}, {"minLength", 2}};
  BOOST_TEST(judge(min, "ab").empty());
  BOOST_TEST(judge(min, "a")
             == strings{"FieldValueInvalid spec.x: Invalid value: \"a\": spec.x in body should be at "
                        "least 2 chars long"});
  json pattern = {{"type", "string"}, {"pattern", "^[a-z]+$"}};
  BOOST_TEST(judge(pattern, "abc").empty());
  BOOST_TEST(judge(pattern, "ab1")
             == strings{"FieldValueInvalid spec.x: Invalid value: \"ab1\": spec.x in body should match "
                        "'^[a-z]+$'"});
  json choice = {{"type", "string"}, {"enum", {"", "On", "Off"}}};
  BOOST_TEST(judge(choice, "On").empty());
  BOOST_TEST(judge(choice, "")
               .empty());
  BOOST_TEST(judge(choice, "Maybe")
             == strings{"FieldValueNotSupported spec.x: Unsupported value: \"Maybe\": supported values: "
                        "\"\", \"On\", \"Off\""});
}

BOOST_AUTO_TEST_CASE(arrays_objects_required) {
  json list = {{"type", "array"}, {"maxItems", 2}, {"items", {{"type", "integer"}}}};
  BOOST_TEST(judge(list, json::array({1, 2})).empty());
  BOOST_TEST(judge(list, json::array({1, 2, 3}))
             == strings{"FieldValueTooMany spec.x: Too many: 3: must have at most 2 items"});
  BOOST_TEST(judge(list, json::array({1, "two"}))
             == strings{"FieldValueTypeInvalid spec.x[1]: Invalid value: \"string\": spec.x[1] in body "
                        "must be of type integer: \"string\""});
  json obj = {{"type", "object"},
              {"required", {"name"}},
              {"properties", {{"name", {{"type", "string"}}}}}};
  BOOST_TEST(judge(obj, {{"name", "n"}}).empty());
  BOOST_TEST(judge(obj, json::object()) == strings{"FieldValueRequired spec.x.name: Required value"});
  json map = {{"type", "object"}, {"additionalProperties", {{"type", "integer"}}}};
  BOOST_TEST(judge(map, {{"a", 1}}).empty());
  BOOST_TEST(judge(map, {{"a", "1"}})
             == strings{"FieldValueTypeInvalid spec.x.a: Invalid value: \"string\": spec.x.a in body "
                        "must be of type integer: \"string\""});
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(structural_schema_pruning)

BOOST_AUTO_TEST_CASE(unknown_fields_are_dropped_and_named) {
  json obj = request({{"enabled", true}, {"bogus", 1}});
  obj["spec"]["extra"] = {{"deep", true}};
  obj["topLevel"] = 1;
  obj["metadata"]["labels"] = {{"a", "b"}};
  obj["metadata"]["notMeta"] = 1;
  json detail = {{"name", "a"}, {"namespace", "n"}, {"status", "Skipped"}, {"odd", 1}};
  obj["status"]["vmHyperconvergence"]["details"] = json::array({detail});
  auto unknown = prune_unknown_fields(obj, schedopt_schema().root);
  BOOST_TEST(unknown == (strings{"metadata.notMeta", "spec.extra", "spec.vmHyperconvergence.bogus",
                                 "status.vmHyperconvergence.details[0].odd", "topLevel"}),
             boost::test_tools::per_element());
  BOOST_TEST(!obj.contains("topLevel"));
  BOOST_TEST(!obj["spec"].contains("extra"));
  BOOST_TEST(obj["spec"]["vmHyperconvergence"] == json({{"enabled", true}}));
  BOOST_TEST(obj["metadata"] == json({{"name", "req"}, {"labels", {{"a", "b"}}}}));
  BOOST_TEST(obj["apiVersion"] == "stork.libopenstorage.org/v1alpha1");
  BOOST_TEST(!obj["status"]["vmHyperconvergence"]["details"][0].contains("odd"));
}

BOOST_AUTO_TEST_CASE(preserve_unknown_fields_keeps_them) {
  auto schema = schema_of({{"type", "object"},
                           {"properties",
                            {{"spec", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true},
                                       {"properties", {{"known", {{"type", "object"}, {"properties", json::object()}}}}}}}}}});
  json obj = {{"spec", {{"free", {{"a", 1}}}, {"known", {{"gone", 1}}}}}, {"other", 1}};
  auto unknown = prune_unknown_fields(obj, schema.root);
  BOOST_TEST(unknown == (strings{"other", "spec.known.gone"}), boost::test_tools::per_element());
  BOOST_TEST(obj == json({{"spec", {{"free", {{"a", 1}}}, {"known", json::object()}}}}));
}

BOOST_AUTO_TEST_CASE(embedded_resource_keeps_its_type_meta) {
  auto schema = schema_of({{"type", "object"},
                           {"properties",
                            {{"template", {{"type", "object"}, {"x-kubernetes-embedded-resource", true},
                                           {"properties", {{"spec", {{"type", "object"}}}}}}}}}});
  json obj = {{"template", {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}}},
                            {"spec", {{"x", 1}}}, {"junk", 1}}}};
  auto unknown = prune_unknown_fields(obj, schema.root);
  BOOST_TEST(unknown == (strings{"template.junk", "template.spec.x"}), boost::test_tools::per_element());
  BOOST_TEST(obj["template"].contains("apiVersion"));
  BOOST_TEST(obj["template"].contains("metadata"));
}

BOOST_AUTO_TEST_CASE(non_nullable_nulls_are_dropped) {
  json obj = request({{"enabled", nullptr}, {"maxParallelMigrations", 2}});
  prune_non_nullable_nulls(obj, &schedopt_schema().root);
  BOOST_TEST(obj["spec"]["vmHyperconvergence"] == json({{"maxParallelMigrations", 2}}));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(structural_schema_schedulingoptimization)

BOOST_AUTO_TEST_CASE(bad_requests_get_kube_apiserver_causes) {
  json obj = request({{"enabled", "yes"}, {"coolOffPeriod", "ten minutes"}, {"maxParallelMigrations", 0}});
  auto err = enforce_schema(schedopt_schema(), obj, nullptr, false);
  BOOST_REQUIRE(err);
  BOOST_TEST(err->http_status == 422);
  const std::string pattern = R"(^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$)";
  auto causes = validate_custom_resource(schedopt_schema(), obj, nullptr, false);
  BOOST_REQUIRE_EQUAL(causes.size(), 3u);
  BOOST_TEST(causes[0].text()
             == "spec.vmHyperconvergence.coolOffPeriod: Invalid value: \"ten minutes\": "
                "spec.vmHyperconvergence.coolOffPeriod in body should match '" + pattern + "'");
  BOOST_TEST(causes[1].text()
             == "spec.vmHyperconvergence.enabled: Invalid value: \"string\": "
                "spec.vmHyperconvergence.enabled in body must be of type boolean: \"string\"");
  BOOST_TEST(causes[2].text()
             == "spec.vmHyperconvergence.maxParallelMigrations: Invalid value: 0: "
                "spec.vmHyperconvergence.maxParallelMigrations in body should be greater than or equal to 1");
  auto [message, details] = split_status_details(*err);
  BOOST_TEST(details["causes"].size() == 3u);
  BOOST_TEST(message
             == "SchedulingOptimization.stork.libopenstorage.org \"req\" is invalid: [" + causes[0].text()
                  + ", " + causes[1].text() + ", " + causes[2].text() + "]");
}

BOOST_AUTO_TEST_CASE(one_cause_has_no_brackets_and_status_carries_causes) {
  json obj = request({{"maxParallelMigrations", 0}});
  auto causes = validate_custom_resource(schedopt_schema(), obj, nullptr, false);
  auto status = invalid_status("SchedulingOptimization.stork.libopenstorage.org", "stork.libopenstorage.org",
                               "SchedulingOptimization", "req", causes);
  BOOST_TEST(status["message"]
             == "SchedulingOptimization.stork.libopenstorage.org \"req\" is invalid: "
                "spec.vmHyperconvergence.maxParallelMigrations: Invalid value: 0: "
                "spec.vmHyperconvergence.maxParallelMigrations in body should be greater than or equal to 1");
  BOOST_TEST(status["reason"] == "Invalid");
  BOOST_TEST(status["code"] == 422);
  BOOST_TEST(status["details"]["name"] == "req");
  BOOST_TEST(status["details"]["group"] == "stork.libopenstorage.org");
  BOOST_TEST(status["details"]["kind"] == "SchedulingOptimization");
  BOOST_TEST(status["details"]["causes"]
             == json::array({{{"reason", "FieldValueInvalid"},
                              {"message", "Invalid value: 0: spec.vmHyperconvergence.maxParallelMigrations "
                                          "in body should be greater than or equal to 1"},
                              {"field", "spec.vmHyperconvergence.maxParallelMigrations"}}}));
}

BOOST_AUTO_TEST_CASE(good_request_passes) {
  json obj = request({{"enabled", true}, {"coolOffPeriod", "1h30m"}, {"maxParallelMigrations", 4}});
  BOOST_TEST(!enforce_schema(schedopt_schema(), obj, nullptr, false));
  json zero = request({{"coolOffPeriod", "0"}});
  BOOST_TEST(!enforce_schema(schedopt_schema(), zero, nullptr, false));
  json micro = request({{"coolOffPeriod", "1.5\xc2\xb5s"}});
  BOOST_TEST(!enforce_schema(schedopt_schema(), micro, nullptr, false));
  // The CRD's maxLength refuses a megabyte value, alone: kube-openapi's stringValidator
  // reports its first failure only.
  const std::string mega(1024 * 1024, '9');
  json long_value = request({{"coolOffPeriod", mega + "s"}});
  auto too_long = validate_custom_resource(schedopt_schema(), long_value, nullptr, false);
  BOOST_REQUIRE_EQUAL(too_long.size(), 1u);
  BOOST_TEST(too_long[0].text().find("Too long: may not be more than 64 bytes") != std::string::npos,
             too_long[0].text().substr(0, 200));
  // The pattern matches a megabyte-long value without exhausting the stack.
  const std::string pattern = R"(^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$)";
  BOOST_TEST(judge({{"type", "string"}, {"pattern", pattern}}, mega + "s").empty());
  BOOST_TEST(judge({{"type", "string"}, {"pattern", pattern}}, mega + "x").size() == 1u);
}

BOOST_AUTO_TEST_CASE(re2_class_escapes_are_matched) {
  BOOST_TEST(judge({{"type", "string"}, {"pattern", "^\\d+(?:\\.\\d+)?$"}}, "12.5").empty());
  BOOST_TEST(judge({{"type", "string"}, {"pattern", "^\\d+(?:\\.\\d+)?$"}}, "12.x").size() == 1u);
  BOOST_TEST(judge({{"type", "string"}, {"pattern", "^[\\w-]+$"}}, "a_b-c").empty());
  BOOST_TEST(judge({{"type", "string"}, {"pattern", "^[\\w-]+$"}}, "a b").size() == 1u);
}

BOOST_AUTO_TEST_CASE(status_writes_judge_status_under_status) {
  json obj = request({{"enabled", true}});
  obj["status"] = {{"stage", "Sideways"},
                   {"vmHyperconvergence",
                    {{"successful", -1},
                     {"details", {{{"name", "a"}, {"status", "Failed"}, {"reason", std::string(1025, 'r')}}}}}}};
  std::vector<std::string> texts;
  for (auto& e : validate_custom_resource(schedopt_schema(), obj, nullptr, true))
    texts.push_back(e.reason + " " + e.text());
  BOOST_TEST(texts
               == (strings{"FieldValueNotSupported status.stage: Unsupported value: \"Sideways\": supported "
                           "values: \"\", \"Pending\", \"Evaluating\", \"Migrating\", \"Final\"",
                           "FieldValueTooLong status.vmHyperconvergence.details[0].reason: Too long: may not "
                           "be more than 1024 bytes",
                           "FieldValueRequired status.vmHyperconvergence.details[0].namespace: Required value",
                           "FieldValueInvalid status.vmHyperconvergence.successful: Invalid value: -1: "
                           "vmHyperconvergence.successful in body should be greater than or equal to 0"}),
             boost::test_tools::per_element());
  // The status validator does not look at spec.
  json bad_spec = request({{"maxParallelMigrations", 0}});
  bad_spec["status"] = {{"stage", "Final"}};
  BOOST_TEST(validate_custom_resource(schedopt_schema(), bad_spec, nullptr, true).empty());
}

BOOST_AUTO_TEST_CASE(unchanged_invalid_values_ratchet) {
  json old = request({{"maxParallelMigrations", 0}, {"enabled", true}});
  json next = old;
  next["metadata"]["labels"] = {{"touched", "yes"}};
  BOOST_TEST(validate_custom_resource(schedopt_schema(), next, &old, false).empty());
  next["spec"]["vmHyperconvergence"]["enabled"] = "yes";
  BOOST_TEST(validate_custom_resource(schedopt_schema(), next, &old, false).size() == 1u);
  next["spec"]["vmHyperconvergence"]["maxParallelMigrations"] = -1;
  BOOST_TEST(validate_custom_resource(schedopt_schema(), next, &old, false).size() == 2u);
}

BOOST_AUTO_TEST_CASE(message_helpers) {
  BOOST_TEST(strict_decoding_message({"spec.a", "spec.b"})
             == "strict decoding error: unknown field \"spec.a\", unknown field \"spec.b\"");
  BOOST_TEST(warning_header("unknown field \"spec.foo\"") == "299 - \"unknown field \\\"spec.foo\\\"\"");
  BOOST_TEST(go_quote("a\"b\\\n") == "\"a\\\"b\\\\\\n\"");
}

BOOST_AUTO_TEST_SUITE_END()
