// Unit tests of Kubernetes' protobuf serialization of built-in objects: what a Go client's
// bytes decode to (the JSON kube-apiserver's Go structs would show), what the encoder
// writes, the types with their own JSON form, and the unknown fields a built-in drops.
#include <boost/test/unit_test.hpp>

#include "sim/protobuf/go_time.hpp"
#include "sim/protobuf/k8s_protobuf.hpp"

namespace pb = schedopt::sim::protobuf;
using nlohmann::json;

namespace {

std::string varint(std::size_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  return out + static_cast<char>(v);
}

/// The serializer's envelope around `raw` by hand: magic, then runtime.Unknown's
/// typeMeta (1: apiVersion 1, kind 2) and raw (2).
std::string envelope(const std::string& api_version, const std::string& kind, const std::string& raw) {
  std::string type_meta = "\x0a" + varint(api_version.size()) + api_version + "\x12" + varint(kind.size()) + kind;
  std::string unknown = "\x0a" + varint(type_meta.size()) + type_meta + "\x12" + varint(raw.size()) + raw;
  return std::string("k8s\0", 4) + unknown;
}

json round_trip(const json& object) {
  auto bytes = pb::encode(object);
  BOOST_REQUIRE(bytes.has_value());
  BOOST_REQUIRE(pb::has_magic(*bytes));
  auto decoded = pb::decode(*bytes);
  BOOST_REQUIRE_MESSAGE(decoded.error.empty(), decoded.error);
  return decoded.object;
}

} // namespace

BOOST_AUTO_TEST_SUITE(k8s_protobuf_suite)

BOOST_AUTO_TEST_CASE(go_times_and_durations_read_and_write_as_go_does) {
  BOOST_TEST(pb::format_rfc3339(0) == "1970-01-01T00:00:00Z");
  BOOST_TEST(pb::format_rfc3339_micro(1767225600, 250000000) == "2026-01-01T00:00:00.250000Z");
  auto parsed = pb::parse_rfc3339("2026-01-01T01:00:00.5+01:00");
  BOOST_REQUIRE(parsed.has_value());
  BOOST_TEST(parsed->seconds == 1767225600);
  BOOST_TEST(parsed->nanos == 500000000);
  BOOST_TEST(!pb::parse_rfc3339("yesterday").has_value());
  BOOST_TEST(!pb::parse_rfc3339("2026-01-01T00:00:00").has_value()); // no zone
  BOOST_TEST(pb::format_go_duration(0) == "0s");
  BOOST_TEST(pb::format_go_duration(3600000000000) == "1h0m0s");
  BOOST_TEST(pb::format_go_duration(1500000000) == "1.5s");
  BOOST_TEST(pb::format_go_duration(250000000) == "250ms");
  BOOST_TEST(pb::format_go_duration(3000) == "3\u00b5s");
  BOOST_TEST(pb::format_go_duration(-90000000000) == "-1m30s");
  BOOST_TEST(pb::parse_go_duration("1h30m").value_or(-1) == 5400000000000);
  BOOST_TEST(pb::parse_go_duration("1.5s").value_or(-1) == 1500000000);
  BOOST_TEST(!pb::parse_go_duration("soon").has_value());
  BOOST_TEST(!pb::parse_go_duration("").has_value());
}

BOOST_AUTO_TEST_CASE(a_config_map_keeps_its_bytes_and_a_false_pointer_bool) {
  json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "pb"}, {"namespace", "ns"}, {"generateName", ""}, {"labels", {{"a", "b"}}}}},
             {"data", {{"k", "v"}}},
             {"binaryData", {{"b", "AAEC"}}},
             {"immutable", false}};
  auto back = round_trip(cm);
  BOOST_TEST(back["apiVersion"] == "v1");
  BOOST_TEST(back["kind"] == "ConfigMap");
  BOOST_TEST(back["binaryData"]["b"] == "AAEC");
  BOOST_TEST(back["immutable"] == false); // *bool: set to false, not absent
  // A non-pointer string that is empty is omitempty in Go; a zero creationTimestamp is omitzero.
  BOOST_TEST(!back["metadata"].contains("generateName"));
  BOOST_TEST(!back["metadata"].contains("creationTimestamp"));
  BOOST_TEST(back["metadata"]["labels"] == json({{"a", "b"}}));
}

BOOST_AUTO_TEST_CASE(fields_without_omitempty_and_structs_show_as_go_writes_them) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}, {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
              {"spec", {{"containers", {{{"image", "i"}, {"ports", {{{"containerPort", 80}}}}}}}}}};
  auto back = round_trip(pod);
  BOOST_TEST(back["metadata"]["creationTimestamp"] == "2026-01-01T00:00:00Z");
  auto& container = back["spec"]["containers"][0];
  BOOST_TEST(container["name"] == "");           // json:"name", no omitempty
  BOOST_TEST(container["resources"] == json::object()); // a struct is never left out
  BOOST_TEST(container["ports"][0]["containerPort"] == 80);
  BOOST_TEST(back["status"] == json::object());
}

BOOST_AUTO_TEST_CASE(an_inline_struct_travels_as_its_parents_fields) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}}},
              {"spec", {{"volumes", {{{"name", "data"}, {"persistentVolumeClaim", {{"claimName", "claim"}}}}}}}}};
  auto volume = round_trip(pod)["spec"]["volumes"][0];
  BOOST_TEST(volume == json({{"name", "data"}, {"persistentVolumeClaim", {{"claimName", "claim"}}}}));
}

BOOST_AUTO_TEST_CASE(int_or_string_quantity_and_micro_time_keep_their_json_form) {
  json budget = {{"apiVersion", "policy/v1"},
                 {"kind", "PodDisruptionBudget"},
                 {"metadata", {{"name", "b"}}},
                 {"spec", {{"maxUnavailable", "50%"}, {"minAvailable", 1}}}};
  auto back = round_trip(budget);
  BOOST_TEST(back["spec"]["maxUnavailable"] == "50%");
  BOOST_TEST(back["spec"]["minAvailable"] == 1);

  json claim = {{"apiVersion", "v1"},
                {"kind", "PersistentVolumeClaim"},
                {"metadata", {{"name", "c"}}},
                {"spec", {{"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
  BOOST_TEST(round_trip(claim)["spec"]["resources"]["requests"]["storage"] == "1Gi");

  json event = {{"apiVersion", "events.k8s.io/v1"},
                {"kind", "Event"},
                {"metadata", {{"name", "e"}}},
                {"eventTime", "2026-01-01T00:00:00.250000Z"}};
  BOOST_TEST(round_trip(event)["eventTime"] == "2026-01-01T00:00:00.250000Z");
}

BOOST_AUTO_TEST_CASE(a_status_and_a_named_slice_travel_too) {
  json status = {{"apiVersion", "v1"},  {"kind", "Status"},     {"status", "Failure"},
                 {"reason", "NotFound"}, {"code", 404},         {"message", "configmaps \"x\" not found"},
                 {"details", {{"name", "x"}, {"kind", "configmaps"}}}};
  auto back = round_trip(status);
  BOOST_TEST(back["code"] == 404);
  BOOST_TEST(back["details"]["name"] == "x");

  json review = {{"apiVersion", "authentication.k8s.io/v1"},
                 {"kind", "SelfSubjectReview"},
                 {"metadata", json::object()},
                 {"status", {{"userInfo", {{"username", "u"}, {"extra", {{"scopes", {"a", "b"}}}}}}}}};
  BOOST_TEST(round_trip(review)["status"]["userInfo"]["extra"]["scopes"] == json({"a", "b"}));
}

BOOST_AUTO_TEST_CASE(a_custom_resource_has_no_protobuf) {
  json cr = {{"apiVersion", "stork.libopenstorage.org/v1alpha1"}, {"kind", "SchedulingOptimization"}};
  BOOST_TEST(!pb::encode(cr).has_value());
  BOOST_TEST(!pb::encode(json::array()).has_value());
}

BOOST_AUTO_TEST_CASE(bad_bytes_are_an_error_never_a_crash) {
  BOOST_TEST(!pb::decode("{\"kind\":\"ConfigMap\"}").error.empty()); // no magic
  BOOST_TEST(!pb::decode(std::string("k8s\0\xff\xff\xff", 7)).error.empty());
  BOOST_TEST(!pb::decode(std::string("k8s\0", 4)).error.empty()); // an envelope of no kind
  auto bytes = pb::encode({{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "x"}}}});
  BOOST_REQUIRE(bytes.has_value());
  for (std::size_t cut = 5; cut < bytes->size(); ++cut)
    pb::decode(bytes->substr(0, cut)); // truncated anywhere: an error or a partial object
  // WatchEvents nested in each other's object, far deeper than any client sends.
  json event = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "x"}}}};
  std::string nested = *pb::encode(event);
  for (int i = 0; i < 2000; ++i) {
    // The encoder writes a RawExtension as JSON text, so the protobuf object goes in by
    // hand: WatchEvent's type (1) and object (2), a RawExtension whose raw (1) is it.
    std::string raw = std::string(1, '\x0a') + varint(nested.size()) + nested;
    std::string object = std::string(1, '\x12') + varint(raw.size()) + raw;
    std::string inner = std::string(1, '\x0a') + varint(5) + "ADDED" + object;
    nested = envelope("v1", "WatchEvent", inner);
  }
  auto deep = pb::decode(nested);
  BOOST_TEST(deep.error.empty());
  BOOST_TEST(deep.object["kind"] == "WatchEvent");
}

BOOST_AUTO_TEST_CASE(unknown_fields_are_dropped_and_named_as_the_strict_decoder_names_them) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"bogus", 1},
              {"metadata", {{"name", "p"}, {"colour", "red"}}},
              {"spec", {{"containers", {{{"name", "c"}, {"foo", 2}}}}}}};
  auto dropped = pb::drop_unknown_fields(pod, "v1", "Pod");
  BOOST_TEST(dropped == (std::vector<std::string>{"bogus", "metadata.colour", "spec.containers[0].foo"}),
             boost::test_tools::per_element());
  BOOST_TEST(!pod.contains("bogus"));
  BOOST_TEST(pod["spec"]["containers"][0] == json({{"name", "c"}}));
  // Inline structs and embedded TypeMeta are the type's own fields, not unknown ones.
  json set = {{"apiVersion", "apps/v1"},
              {"kind", "StatefulSet"},
              {"metadata", {{"name", "s"}}},
              {"spec",
               {{"template", {{"spec", {{"volumes", {{{"name", "v"}, {"persistentVolumeClaim", {{"claimName", "c"}}}}}}}}}},
                {"volumeClaimTemplates", {{{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}, {"metadata", {{"name", "d"}}}}}}}}};
  BOOST_TEST(pb::drop_unknown_fields(set, "apps/v1", "StatefulSet").empty());
  BOOST_TEST(set["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] == "c");
  json cr = {{"anything", 1}};
  BOOST_TEST(pb::drop_unknown_fields(cr, "stork.libopenstorage.org/v1alpha1", "SchedulingOptimization").empty());
}

BOOST_AUTO_TEST_SUITE_END()
