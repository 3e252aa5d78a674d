// What a vmHyperconvergence run decides from its inputs alone
// (model/kinds/vm_hyperconvergence/run_inputs): each VM's last migration for cool-off
// (docs/design.md §3.5), and the VMIMs a resumed run adopts (§4.1).
#include <boost/test/unit_test.hpp>

#include "model/placement/cool_off.hpp"
#include "model/kinds/vm_hyperconvergence/run_inputs.hpp"
#include "model/ownership_labels.hpp"

using namespace schedopt;

namespace {

const std::string key = "schedopt.libopenstorage.org/last-migration-time";

timestamp at(const char* text) {
  return *parse_rfc3339(text);
}

std::shared_ptr<const virtual_machine_instance> vmi(const std::string& name,
                                                    const std::string& vm = "",
                                                    string_map annotations = {}) {
  virtual_machine_instance v;
  v.metadata.namespace_ = "ns";
  v.metadata.name = name;
  v.controller_vm = vm;
  v.metadata.annotations = std::move(annotations);
  return std::make_shared<const virtual_machine_instance>(std::move(v));
}

virtual_machine_instance_migration vmim(const std::string& vmi_name, const std::string& created,
                                        const std::string& request_uid = "") {
  virtual_machine_instance_migration m;
  m.metadata.namespace_ = "ns";
  m.metadata.name = vmi_name + "-schedopt-x";
  m.vmi_name = vmi_name;
  m.metadata.creation_timestamp = created;
  m.metadata.labels[labels::managed_by] = labels::managed_by_value;
  if (!request_uid.empty())
    m.metadata.labels[labels::request_uid] = request_uid;
  return m;
}

} // namespace

BOOST_AUTO_TEST_SUITE(run_inputs_suite)

BOOST_AUTO_TEST_CASE(last_migration_is_the_holders_record_or_the_latest_vmim) {
  run_inputs in;
  in.vmis = {vmi("owned", "vm-owned"), vmi("alone", "", {{key, "2026-11-30T10:00:00Z"}}),
             vmi("migrated"), vmi("untouched")};
  // The VM's record counts for its VMI, not the VMI's own annotations.
  in.vm_annotations["ns/vm-owned"] = {{key, "2026-11-30T09:00:00Z"}};
  in.vmims = {vmim("migrated", "2026-11-30T11:00:00Z")};
  auto last = last_migrations(in, key, "req-1", {});
  BOOST_CHECK(last.ignored.empty());
  BOOST_CHECK_EQUAL(last.by_vmi.size(), 3u);
  BOOST_CHECK(last.by_vmi.at("ns/owned") == at("2026-11-30T09:00:00Z"));
  BOOST_CHECK(last.by_vmi.at("ns/alone") == at("2026-11-30T10:00:00Z"));
  BOOST_CHECK(last.by_vmi.at("ns/migrated") == at("2026-11-30T11:00:00Z"));
  BOOST_CHECK(!last.by_vmi.count("ns/untouched"));
}

BOOST_AUTO_TEST_CASE(this_requests_record_without_its_vmim_is_ignored) {
  // Interrupted between the record and the create: the VM was never migrated.
  string_map mine{{key, "2026-11-30T10:00:00Z"}, {cool_off_request_annotation(key), "req-1"}};
  run_inputs in;
  in.vmis = {vmi("a", "", mine), vmi("b", "", mine)};
  in.vmims = {vmim("b", "2026-11-30T10:00:01Z", "req-1")};
  auto last = last_migrations(in, key, "req-1", {"ns/b"});
  BOOST_CHECK(!last.by_vmi.count("ns/a"));
  BOOST_CHECK(last.by_vmi.at("ns/b") == at("2026-11-30T10:00:01Z")); // adopted: it counts
  // Another request's record always counts.
  auto other = last_migrations(in, key, "req-2", {});
  BOOST_CHECK(other.by_vmi.at("ns/a") == at("2026-11-30T10:00:00Z"));
}

BOOST_AUTO_TEST_CASE(an_unreadable_record_is_ignored_and_said) {
  run_inputs in;
  in.vmis = {vmi("a", "", {{key, "yesterday"}})};
  in.vmims = {vmim("a", "2026-11-30T08:00:00Z")};
  auto last = last_migrations(in, key, "req-1", {});
  BOOST_REQUIRE_EQUAL(last.ignored.size(), 1u);
  BOOST_CHECK_EQUAL(last.ignored[0].vmi, "a");
  BOOST_CHECK(!last.ignored[0].why.empty());
  BOOST_CHECK(last.by_vmi.at("ns/a") == at("2026-11-30T08:00:00Z")); // the VMIM still counts
}

BOOST_AUTO_TEST_CASE(a_resumed_run_adopts_its_own_vmims_not_yet_recorded) {
  run_inputs in;
  in.vmis = {vmi("a", "vm-a"), vmi("b"), vmi("c")};
  in.vm_annotations["ns/vm-a"] = {{key, "2026-11-30T09:00:00Z"}, {"other", "x"}};
  in.vmims = {vmim("a", "2026-11-30T10:00:00Z", "req-1"), vmim("b", "2026-11-30T10:00:00Z", "req-1"),
              vmim("c", "2026-11-30T10:00:00Z", "req-2"), vmim("gone", "2026-11-30T10:00:00Z", "req-1")};
  auto ours = vmims_of_request(in.vmims, "req-1");
  BOOST_CHECK_EQUAL(ours.size(), 3u); // a, b and gone; c is another request's
  kind_status_block recorded;
  recorded.successful = 1;
  recorded.details = {{"b", "ns", detail_status::successful, ""}};
  auto plans = adopted_plans(in, ours, resume_ledger{recorded}, "so", "req-1", key);
  BOOST_REQUIRE_EQUAL(plans.size(), 2u); // b's result is recorded already
  BOOST_CHECK_EQUAL(plans[0].vmi.metadata.name, "a");
  BOOST_REQUIRE(plans[0].adopted);
  BOOST_CHECK_EQUAL(plans[0].adopted->vmi_name, "a");
  BOOST_CHECK_EQUAL(plans[0].request_uid, "req-1");
  // The record the candidate puts back is the holder's (the VM's), its two keys only.
  BOOST_CHECK((plans[0].cool_off_before == string_map{{key, "2026-11-30T09:00:00Z"}}));
  // A VMI gone since: the plan names it, from its VMIM.
  BOOST_CHECK_EQUAL(plans[1].vmi.metadata.name, "gone");
  BOOST_CHECK_EQUAL(plans[1].vmi.metadata.namespace_, "ns");
}

BOOST_AUTO_TEST_SUITE_END()
