// docs/design.md §3.5 cool-off: record holder, annotation round trip, VMIM-derived times, window.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "model/decode.hpp"
#include "model/placement/cool_off.hpp"
#include "model/ownership_labels.hpp"

using namespace schedopt;
using namespace std::chrono_literals;

namespace {

timestamp at(const char* text) {
  return *parse_rfc3339(text);
}

virtual_machine_instance_migration schedopt_vmim(const std::string& created) {
  virtual_machine_instance_migration m;
  m.metadata.labels[labels::managed_by] = labels::managed_by_value;
  m.metadata.creation_timestamp = created;
  return m;
}

} // namespace

BOOST_AUTO_TEST_SUITE(cool_off)

BOOST_AUTO_TEST_CASE(holder_is_the_controlling_vm_else_the_vmi) {
  virtual_machine_instance v;
  v.metadata.namespace_ = "ns";
  v.metadata.name = "vmi-1";
  auto h = cool_off_holder_of(v);
  BOOST_CHECK_EQUAL(h.kind, "VirtualMachineInstance");
  BOOST_CHECK_EQUAL(h.resource, "virtualmachineinstances");
  BOOST_CHECK_EQUAL(h.name, "vmi-1");
  // A non-controller VM reference or another kind does not make a holder (the decoder
  // keeps the controlling VirtualMachine's name only).
  auto with_owners = [](const std::string& owners) {
    auto vmi = decode_vmi(R"({"metadata":{"name":"vmi-1","namespace":"ns","ownerReferences":[)"
                          + owners + "]}}");
    BOOST_REQUIRE(vmi);
    return *vmi;
  };
  std::string others = R"({"apiVersion":"kubevirt.io/v1","kind":"VirtualMachine","name":"vm-x","uid":"u"},)"
                       R"({"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u2","controller":true})";
  BOOST_CHECK_EQUAL(cool_off_holder_of(with_owners(others)).kind, "VirtualMachineInstance");
  v = with_owners(others + R"(,{"apiVersion":"kubevirt.io/v1","kind":"VirtualMachine","name":"vm-1","uid":"u3","controller":true})");
  h = cool_off_holder_of(v);
  BOOST_CHECK_EQUAL(h.kind, "VirtualMachine");
  BOOST_CHECK_EQUAL(h.resource, "virtualmachines");
  BOOST_CHECK_EQUAL(h.api_version, "kubevirt.io/v1");
  BOOST_CHECK_EQUAL(h.namespace_, "ns");
  BOOST_CHECK_EQUAL(h.name, "vm-1");
}

BOOST_AUTO_TEST_CASE(annotation_round_trip) {
  auto patch = cool_off_patch(default_cool_off_annotation, at("2026-11-30T10:00:00Z"));
  BOOST_CHECK_EQUAL(patch.dump(), R"({"metadata":{"annotations":{"schedopt.libopenstorage.org/)"
                                  R"(last-migration-time":"2026-11-30T10:00:00Z"}}})");
  string_map annotations = {
    {default_cool_off_annotation, patch["metadata"]["annotations"][default_cool_off_annotation]}};
  auto t = recorded_migration_time(annotations, default_cool_off_annotation);
  BOOST_REQUIRE(t);
  BOOST_REQUIRE(t->has_value());
  BOOST_CHECK(**t == at("2026-11-30T10:00:00Z"));
}

BOOST_AUTO_TEST_CASE(the_record_names_its_request_and_a_failed_create_restores_it) {
  auto key = std::string{default_cool_off_annotation};
  auto patch = cool_off_patch(key, at("2026-11-30T10:00:00Z"), "uid-1");
  BOOST_CHECK_EQUAL(patch["metadata"]["annotations"][key + "-request-uid"], "uid-1");
  string_map written = {{key, "2026-11-30T10:00:00Z"}, {key + "-request-uid", "uid-1"},
                        {"other", "x"}};
  BOOST_CHECK(cool_off_written_by(written, key, "uid-1"));
  BOOST_CHECK(!cool_off_written_by(written, key, "uid-2"));
  BOOST_CHECK(!cool_off_written_by({{key, "2026-11-30T10:00:00Z"}}, key, "uid-1"));

  // Before: an older record without a request: the time comes back, the uid goes.
  auto before = cool_off_record_of({{key, "2026-11-29T08:00:00Z"}, {"other", "x"}}, key);
  BOOST_CHECK_EQUAL(before.size(), 1u);
  auto restore = cool_off_restore_patch(key, before);
  BOOST_CHECK_EQUAL(restore.dump(),
                    R"({"metadata":{"annotations":{"schedopt.libopenstorage.org/last-migration-time":)"
                    R"("2026-11-29T08:00:00Z","schedopt.libopenstorage.org/last-migration-time-)"
                    R"(request-uid":null}}})");
  // Never migrated before: both are removed (merge-patch null).
  auto removal = cool_off_restore_patch(key, {});
  BOOST_CHECK(removal["metadata"]["annotations"][key].is_null());
}

BOOST_AUTO_TEST_CASE(absent_and_malformed_records) {
  auto none = recorded_migration_time({}, default_cool_off_annotation);
  BOOST_REQUIRE(none);
  BOOST_CHECK(!none->has_value());
  auto bad = recorded_migration_time({{default_cool_off_annotation, "yesterday"}},
                                     default_cool_off_annotation);
  BOOST_REQUIRE(!bad);
  BOOST_CHECK(bad.err().message.find("annotation schedopt.libopenstorage.org/"
                                     "last-migration-time \"yesterday\"")
              == 0);
}

BOOST_AUTO_TEST_CASE(latest_of_record_and_schedopt_vmims) {
  auto record = at("2026-11-30T09:00:00Z");
  BOOST_CHECK(*latest_migration_time(record, {}) == record);
  BOOST_CHECK(!latest_migration_time(std::nullopt, {}).has_value());

  auto created = schedopt_vmim("2026-11-30T09:30:00Z");
  BOOST_CHECK(*latest_migration_time(record, {created}) == at("2026-11-30T09:30:00Z"));

  auto finished = schedopt_vmim("2026-11-30T08:00:00Z");
  finished.migration = migration_state{};
  finished.migration->start_timestamp = "2026-11-30T08:01:00Z";
  finished.migration->end_timestamp = "2026-11-30T10:15:00Z";
  BOOST_CHECK(*latest_migration_time(record, {created, finished}) == at("2026-11-30T10:15:00Z"));

  auto transitions = schedopt_vmim("2026-11-30T08:00:00Z");
  transitions.phase_transition_timestamps = {{"Pending", "2026-11-30T08:00:00Z"},
                                             {"Failed", "2026-11-30T11:00:00Z"}};
  BOOST_CHECK(*latest_migration_time(std::nullopt, {transitions}) == at("2026-11-30T11:00:00Z"));

  // Somebody else's migration never starts a schedopt cool-off.
  auto foreign = schedopt_vmim("2026-11-30T11:59:00Z");
  foreign.metadata.labels.clear();
  BOOST_CHECK(*latest_migration_time(record, {foreign}) == record);
}

BOOST_AUTO_TEST_CASE(window) {
  auto last = at("2026-11-30T10:00:00Z");
  BOOST_CHECK(eligible_after(last, 90min) == at("2026-11-30T11:30:00Z"));
  BOOST_CHECK(is_cooling_off(last, 1h, at("2026-11-30T10:59:59Z")));
  BOOST_CHECK(!is_cooling_off(last, 1h, at("2026-11-30T11:00:00Z")));
  BOOST_CHECK(!is_cooling_off(last, 0s, last));
}

BOOST_AUTO_TEST_SUITE_END()
