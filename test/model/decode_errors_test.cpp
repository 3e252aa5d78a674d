// Bad documents give errors naming what is wrong, never a crash or a half-filled object.
#include <boost/test/unit_test.hpp>

#include <random>

#include "model/fixture_file.hpp"
#include "model/decode.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"

using namespace schedopt;
using schedopt::test::fixture;

BOOST_AUTO_TEST_SUITE(decode_errors)

BOOST_AUTO_TEST_CASE(malformed_json_is_a_parse_error) {
  for (const char* text : {"{", "{\"metadata\":", "not json", "{\"a\":1,}", "", "{\"a\" 1}"}) {
    auto r = decode_vmi(text);
    BOOST_TEST_INFO("input " << text);
    BOOST_REQUIRE(!r);
    BOOST_TEST(r.err().code == ec::parse_error);
    BOOST_TEST(r.err().message.rfind("malformed JSON: ", 0) == 0u);
    BOOST_TEST(r.err().message.size() > std::string("malformed JSON: ").size());
  }
}

BOOST_AUTO_TEST_CASE(truncated_fixture_is_a_parse_error_at_every_cut) {
  const std::string full = fixture("vmi-running.json");
  std::size_t failures = 0;
  for (std::size_t cut = 0; cut + 2 < full.size(); cut += 37) {
    auto r = decode_vmi(std::string_view(full).substr(0, cut));
    BOOST_REQUIRE(!r);
    BOOST_TEST(r.err().code == ec::parse_error);
    ++failures;
  }
  BOOST_TEST(failures > 50u);
  auto list = decode_list<virtual_machine_instance>(fixture("vmi-list-continue.json").substr(0, 500));
  BOOST_REQUIRE(!list);
  BOOST_TEST(list.err().code == ec::parse_error);
}

BOOST_AUTO_TEST_CASE(non_object_document) {
  auto r = decode_node("[1,2,3]");
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.err().code == ec::type_mismatch);
  BOOST_TEST(r.err().message == "(document): expected object, got array");
}

BOOST_AUTO_TEST_CASE(wrong_types_name_the_field_path) {
  struct row {
    const char* json;
    const char* message;
  };
  const row rows[] = {
    {R"({"metadata":{"name":"v"},"status":{"phase":3}})", "status.phase: expected string, got number"},
    {R"({"metadata":{"name":"v"},"status":"Running"})", "status: expected object, got string"},
    {R"({"metadata":{"name":7}})", "metadata.name: expected string, got number"},
    {R"({"metadata":{"name":"v"},"spec":{"volumes":{}}})", "spec.volumes: expected array, got object"},
    {R"({"metadata":{"name":"v"},"spec":{"volumes":[{"name":"a"},{"name":"b","persistentVolumeClaim":{"claimName":false}}]}})",
     "spec.volumes[1].persistentVolumeClaim.claimName: expected string, got boolean"},
    {R"({"metadata":{"name":"v"},"status":{"migrationState":{"completed":"yes"}}})",
     "status.migrationState.completed: expected boolean, got string"},
    {R"({"metadata":{"name":"v","annotations":{"a":1}}})", "metadata.annotations.a: expected string, got number"},
  };
  auto each_names_its_path = [](const auto& table, auto decoder) {
    for (const auto& r : table) {
      auto d = decoder(r.json);
      BOOST_TEST_INFO("input " << r.json);
      BOOST_REQUIRE(!d);
      BOOST_TEST(d.err().code == ec::type_mismatch);
      BOOST_TEST(d.err().message == r.message);
    }
  };
  each_names_its_path(rows, [](const char* json) { return decode_vmi(json); });
  // Full metadata (VMIMs, requests, nodes) is read whole, so its paths are named too.
  const row full_meta[] = {
    {R"({"metadata":{"name":"m","labels":{"a":1}},"spec":{"vmiName":"v"}})", "metadata.labels.a: expected string, got number"},
    {R"({"metadata":{"name":"m","generation":"2"},"spec":{"vmiName":"v"}})", "metadata.generation: expected integer, got string"},
    {R"({"metadata":{"name":"m","finalizers":["a",2]},"spec":{"vmiName":"v"}})", "metadata.finalizers[1]: expected string, got number"},
  };
  each_names_its_path(full_meta, [](const char* json) { return decode_vmim(json); });
}

// A stored kind's decoder skips the metadata it does not keep (objects.hpp lean_meta), so
// a malformed label no decision reads does not make a VMI undecodable.
BOOST_AUTO_TEST_CASE(metadata_a_vmi_does_not_keep_is_not_judged) {
  auto d = decode_vmi(R"({"metadata":{"name":"v","labels":{"a":1},"finalizers":[2]}})");
  BOOST_REQUIRE_MESSAGE(d.has_value(), (d ? std::string() : d.err().message));
  BOOST_TEST(d->metadata.name == "v");
}

// A spec field of the wrong type is the user's error, not an undecodable object: the
// request decodes with spec.invalid set (so it can be failed with that reason) instead
// of being skipped by the informer and never answered.
BOOST_AUTO_TEST_CASE(wrong_types_in_scheduling_optimization) {
  auto a = decode_scheduling_optimization(
    R"({"metadata":{"name":"r","uid":"u1"},"spec":{"vmHyperconvergence":{"enabled":"true"}}})");
  BOOST_REQUIRE(a);
  BOOST_TEST(a->metadata.uid == "u1");
  BOOST_TEST(a->spec.invalid.value_or("") == "spec.vmHyperconvergence.enabled: expected boolean, got string");
  BOOST_TEST(a->spec.kinds.empty()); // nothing of a half-read spec is used
  // The kind's own fields are the kind's to read (model/kinds/): the same wording.
  auto b = decode_scheduling_optimization(
    R"({"metadata":{"name":"r"},"spec":{"vmHyperconvergence":{"maxParallelMigrations":2.5}}})");
  BOOST_REQUIRE(b);
  auto b_spec = decode_vm_hyperconvergence_spec(b->spec.kinds.at(vm_hyperconvergence_kind));
  BOOST_REQUIRE(!b_spec);
  BOOST_TEST(b_spec.err().message.rfind("spec.vmHyperconvergence.maxParallelMigrations: expected integer", 0) == 0u);
  auto not_object = decode_scheduling_optimization(R"({"metadata":{"name":"r"},"spec":{"vmHyperconvergence":[]}})");
  BOOST_REQUIRE(not_object);
  BOOST_TEST(not_object->spec.invalid.value_or("").rfind("spec.vmHyperconvergence: expected object", 0) == 0u,
             not_object->spec.invalid.value_or(""));
  auto bad_meta = decode_scheduling_optimization(
    R"({"metadata":{"name":7},"spec":{"vmHyperconvergence":{"enabled":"true"}}})");
  BOOST_REQUIRE(!bad_meta); // an object without a readable name is still undecodable
  auto fine = decode_scheduling_optimization(
    R"({"metadata":{"name":"r"},"spec":{"vmHyperconvergence":{"enabled":true}}})");
  BOOST_REQUIRE(fine);
  BOOST_TEST(!fine->spec.invalid);
  auto c = decode_scheduling_optimization(
    R"({"metadata":{"name":"r"},"status":{"vmHyperconvergence":{"details":[{"name":"a","status":1}]}}})");
  BOOST_REQUIRE(!c);
  BOOST_TEST(c.err().message == "status.vmHyperconvergence.details[0].status: expected string, got number");
  auto whole = decode_scheduling_optimization(
    R"({"metadata":{"name":"r"},"spec":{"vmHyperconvergence":{"maxParallelMigrations":4.0}}})");
  BOOST_REQUIRE(whole); // JSON has one number type: 4.0 is the integer 4
  auto whole_spec = decode_vm_hyperconvergence_spec(whole->spec.kinds.at(vm_hyperconvergence_kind));
  BOOST_REQUIRE(whole_spec);
  BOOST_TEST(whole_spec->max_parallel_migrations.value() == 4);
}

BOOST_AUTO_TEST_CASE(list_item_errors_name_the_index) {
  auto r = decode_list<node>(R"({"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"},"spec":{"unschedulable":"no"}}]})");
  BOOST_REQUIRE(r);
  BOOST_REQUIRE_EQUAL(r->skipped.size(), 1u);
  BOOST_TEST(r->skipped[0].why.message == "items[1].spec.unschedulable: expected boolean, got string");
  auto s = decode_list<node>(R"({"items":{}})");
  BOOST_REQUIRE(!s);
  BOOST_TEST(s.err().message == "items: expected array, got object");
}

BOOST_AUTO_TEST_CASE(one_bad_list_item_is_skipped_and_the_others_decode) {
  auto list = decode_list<virtual_machine_instance>(R"({"kind":"VirtualMachineInstanceList",
    "metadata":{"resourceVersion":"42","continue":"next"},
    "items":[
      {"metadata":{"name":"vm-1","namespace":"ns","resourceVersion":"7"},"status":{"phase":"Running"}},
      {"metadata":{"name":"vm-2","namespace":"ns","resourceVersion":"8"},"status":{"phase":17}},
      7,
      {"metadata":{"name":"vm-3","namespace":"ns"},"status":{"nodeName":"worker-3"}}]})");
  BOOST_REQUIRE_MESSAGE(list.has_value(), (list ? std::string() : list.err().message));
  BOOST_TEST(list->resource_version == "42");
  BOOST_TEST(list->continue_token == "next");
  BOOST_REQUIRE_EQUAL(list->items.size(), 2u);
  BOOST_TEST(list->items[0].metadata.name == "vm-1");
  BOOST_TEST(list->items[1].metadata.name == "vm-3");
  BOOST_TEST(list->items[1].node_name == "worker-3");
  BOOST_REQUIRE_EQUAL(list->skipped.size(), 2u);
  auto& bad = list->skipped[0];
  BOOST_TEST(bad.namespace_ == "ns");
  BOOST_TEST(bad.name == "vm-2");
  BOOST_TEST(bad.resource_version == "8");
  BOOST_TEST(bad.why.code == ec::type_mismatch);
  BOOST_TEST(bad.why.message == "items[1].status.phase: expected string, got number");
  BOOST_TEST(list->skipped[1].name == "");
  BOOST_TEST(list->skipped[1].why.message == "items[2]: expected object, got number");
}

BOOST_AUTO_TEST_CASE(undecodable_watch_event_still_names_its_object_and_version) {
  const char* line =
    R"({"type":"MODIFIED","object":{"metadata":{"name":"vm-2","namespace":"ns","resourceVersion":"9"},"status":{"phase":[]}}})";
  auto ev = decode_watch_event<virtual_machine_instance>(line);
  BOOST_REQUIRE(!ev);
  auto who = identify_watch_event(line, ev.err());
  BOOST_TEST(who.type == "MODIFIED");
  BOOST_TEST(who.namespace_ == "ns");
  BOOST_TEST(who.name == "vm-2");
  BOOST_TEST(who.resource_version == "9");
  BOOST_TEST(who.why.message == "object.status.phase: expected string, got array");
  // A name of the wrong type is unreadable; the version still reads.
  auto partial = identify_watch_event(
    R"({"type":"ADDED","object":{"metadata":{"name":5,"resourceVersion":"10"}}})", {});
  BOOST_TEST(partial.name == "");
  BOOST_TEST(partial.resource_version == "10");
  auto garbage = identify_watch_event("{not json", {});
  BOOST_TEST(garbage.type == "");
  BOOST_TEST(garbage.resource_version == "");
}

BOOST_AUTO_TEST_CASE(missing_name_is_an_error) {
  for (const char* json : {R"({"metadata":{"namespace":"x"}})", R"({"kind":"Node"})",
                           R"({"metadata":{"name":""}})", R"({"metadata":null})"}) {
    auto r = decode_node(json);
    BOOST_TEST_INFO("input " << json);
    BOOST_REQUIRE(!r);
    BOOST_TEST(r.err().code == ec::missing_field);
    BOOST_TEST(r.err().message == "metadata.name: is required");
  }
  auto item = decode_list<lease>(R"({"items":[{"metadata":{"name":"a"}},{"metadata":{}}]})");
  BOOST_REQUIRE(item);
  BOOST_REQUIRE_EQUAL(item->skipped.size(), 1u);
  BOOST_TEST(item->skipped[0].why.message == "items[1].metadata.name: is required");
}

BOOST_AUTO_TEST_CASE(out_of_range_integer) {
  auto r = decode_lease(R"({"metadata":{"name":"l"},"spec":{"leaseTransitions":18446744073709551615}})");
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.err().code == ec::invalid_value);
  BOOST_TEST(r.err().message == "spec.leaseTransitions: integer out of range");
}

BOOST_AUTO_TEST_CASE(every_decoder_rejects_garbage_without_crashing) {
  for (const char* g : {"", "null", "[]", "\"s\"", "{\"metadata\":[]}", "\xff\xfe", "{\"items\":3}"}) {
    BOOST_TEST_INFO("input " << g);
    BOOST_TEST(!decode_vmi(g));
    BOOST_TEST(!decode_vmim(g));
    BOOST_TEST(!decode_pvc(g));
    BOOST_TEST(!decode_pv(g));
    BOOST_TEST(!decode_node(g));
    BOOST_TEST(!decode_lease(g));
    BOOST_TEST(!decode_event(g));
    BOOST_TEST(!decode_scheduling_optimization(g));
    BOOST_TEST(!decode_list<persistent_volume>(g));
  }
  // Objects the model reads spec and status of reject non-object spec/status.
  for (const char* g : {"{\"metadata\":{\"name\":\"x\"},\"spec\":[]}",
                        "{\"metadata\":{\"name\":\"x\"},\"status\":[]}"}) {
    BOOST_TEST_INFO("input " << g);
    BOOST_TEST(!decode_vmi(g));
    BOOST_TEST(!decode_vmim(g));
    BOOST_TEST(!decode_node(g));
  }
  // A PVC's status is not read (its phase is not kept), so only its spec is judged.
  BOOST_TEST(!decode_pvc("{\"metadata\":{\"name\":\"x\"},\"spec\":[]}"));
  BOOST_TEST(decode_pvc("{\"metadata\":{\"name\":\"x\"},\"status\":[]}").has_value());
  BOOST_TEST(!decode_scheduling_optimization("{\"metadata\":{\"name\":\"x\"},\"status\":[]}"));
  // A request's non-object spec is the user's error: it decodes, to be failed with it.
  auto spec_list = decode_scheduling_optimization("{\"metadata\":{\"name\":\"x\"},\"spec\":[]}");
  BOOST_REQUIRE(spec_list);
  BOOST_TEST(spec_list->spec.invalid.value_or("").rfind("spec: expected object", 0) == 0u);
}

// Random byte edits of every golden fixture: each decoder returns a value or an error,
// never crashes (run under ASan/UBSan to catch memory errors too).
BOOST_AUTO_TEST_CASE(mutated_fixtures_never_crash) {
  std::mt19937 rng(20261130);
  const char* files[] = {"vmi-running.json", "vmim-failed.json", "pv-local.json", "node-ready.json",
                         "lease.json", "schedulingoptimization.json", "vmi-list-continue.json", "event.json"};
  const char alphabet[] = "{}[]\":,0123456789.-eE\\ntfalsu \x80\xff";
  std::size_t decoded = 0, rejected = 0;
  for (const char* file : files) {
    const std::string original = fixture(file);
    for (int round = 0; round < 150; ++round) {
      std::string text = original;
      int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits; ++e) {
        std::size_t pos = rng() % text.size();
        switch (rng() % 3) {
          case 0: text[pos] = alphabet[rng() % (sizeof alphabet - 1)]; break;
          case 1: text.erase(pos, 1 + rng() % 8); break;
          default: text.insert(pos, 1, alphabet[rng() % (sizeof alphabet - 1)]);
        }
      }
      auto results = {decode_vmi(text).has_value(), decode_vmim(text).has_value(),
                      decode_pv(text).has_value(), decode_node(text).has_value(),
                      decode_lease(text).has_value(), decode_event(text).has_value(),
                      decode_scheduling_optimization(text).has_value(),
                      decode_list<virtual_machine_instance>(text).has_value()};
      for (bool ok : results)
        ++(ok ? decoded : rejected);
    }
  }
  BOOST_TEST(rejected > 0u);
  BOOST_TEST(decoded > 0u); // some edits land in strings and stay valid
}

BOOST_AUTO_TEST_SUITE_END()
