// The cluster's floors no request can lower: the shortest cool-off, the longest run, and
// the VMs and namespaces opted out of migration (the longest queue: request_queue_test).
#include <boost/test/unit_test.hpp>

#include "model/kinds/vm_hyperconvergence/evaluation_world.hpp"
#include "model/placement/run_floors.hpp"
#include "model/outcome.hpp"
#include "model/reason.hpp"

using namespace schedopt;
using namespace schedopt::test;

BOOST_AUTO_TEST_SUITE(run_floors)

BOOST_AUTO_TEST_CASE(a_shorter_cool_off_is_raised_to_the_floor_and_said) {
  auto zero = choose_cool_off(std::string("0s"), 1h, 5min, "vmHyperconvergence");
  BOOST_CHECK(zero.effective == 5min);
  BOOST_CHECK(zero.error.empty());
  BOOST_CHECK_EQUAL(zero.clamped, "coolOffPeriod 0s is below the cluster's minCoolOffPeriod; 5m0s is used");
  auto longer = choose_cool_off(std::string("2h"), 1h, 5min, "vmHyperconvergence");
  BOOST_CHECK(longer.effective == 2h);
  BOOST_CHECK(longer.clamped.empty());
  auto unset = choose_cool_off(std::nullopt, 1h, 5min, "vmHyperconvergence");
  BOOST_CHECK(unset.effective == 1h);
  BOOST_CHECK(unset.clamped.empty());
}

BOOST_AUTO_TEST_CASE(an_unreadable_cool_off_fails_with_the_value_cut) {
  auto bad = choose_cool_off(std::string(1 << 20, '9') + "s", 1h, 5min, "vmHyperconvergence");
  BOOST_CHECK(bad.error.rfind("invalid spec.vmHyperconvergence.coolOffPeriod \"999", 0) == 0);
  BOOST_TEST(bad.error.size() <= max_reason_bytes, bad.error.size());
  BOOST_TEST(bad.error.find("(1048577 bytes)") != std::string::npos, bad.error);
}

BOOST_AUTO_TEST_CASE(a_resumed_run_keeps_its_original_deadline) {
  auto now = at("2026-11-30T12:00:00Z");
  BOOST_CHECK(run_time_left("", now, 6h) == 6h); // a new run
  BOOST_CHECK(run_time_left("2026-11-30T10:00:00Z", now, 6h) == 4h);
  BOOST_CHECK(run_time_left("2026-11-30T05:00:00Z", now, 6h) == 0s);
  BOOST_CHECK(run_time_left("garbage", now, 6h) == 6h);
  BOOST_CHECK(run_time_left("2026-11-30T13:00:00Z", now, 6h) == 6h); // a clock ahead of ours
  BOOST_CHECK_EQUAL(run_deadline_reason(6h), "maxRunDuration 6h0m0s reached");
}

BOOST_AUTO_TEST_CASE(opted_out_vms_and_namespaces_are_skipped_first) {
  world w;
  w.add("labelled-vmi", "n3", {"n1"}).opted_out = true;           // no VirtualMachine
  auto& owned = w.add("owned", "n3", {"n1"});
  owned.controller_vm = "owned";
  owned.opted_out = true; // a VMI label does not count when a VirtualMachine owns it
  auto& vm_labelled = w.add("vm-labelled", "n3", {"n1"});
  vm_labelled.controller_vm = "vm-labelled";
  w.in.opted_out_vms.insert("ns/vm-labelled");
  auto& excluded = w.add("in-excluded-ns", "n3", {"n1"}, "tenant-a");
  excluded.conditions.push_back({"LiveMigratable", "False", "DisksNotLiveMigratable", "", ""});
  w.in.excluded_namespaces.insert("tenant-a");
  auto r = w.run();
  BOOST_CHECK_EQUAL(w.find(r, "labelled-vmi").reason,
                    "OptedOut: labelled schedopt.libopenstorage.org/exclude=true");
  BOOST_CHECK(w.find(r, "owned").disp == disposition::eligible);
  BOOST_CHECK_EQUAL(w.find(r, "vm-labelled").reason,
                    "OptedOut: labelled schedopt.libopenstorage.org/exclude=true");
  BOOST_CHECK_EQUAL(w.find(r, "in-excluded-ns").reason, "OptedOut: namespace tenant-a is excluded");
}

BOOST_AUTO_TEST_CASE(a_run_stopped_by_its_deadline_is_partial) {
  run_summary s;
  s.successful = 3;
  s.outstanding = {"ns/a", "ns/b"};
  s.stopped_by = "maxRunDuration 6h0m0s reached";
  auto o = decide_outcome(s);
  BOOST_CHECK_EQUAL(o.status, request_status::partial_success);
  BOOST_CHECK(o.reason.rfind("maxRunDuration 6h0m0s reached; 2 candidates outstanding", 0) == 0);
  run_summary nothing_left;
  nothing_left.successful = 3;
  nothing_left.stopped_by = "maxRunDuration 6h0m0s reached";
  BOOST_CHECK_EQUAL(decide_outcome(nothing_left).status, request_status::partial_success);
}

BOOST_AUTO_TEST_SUITE_END()
