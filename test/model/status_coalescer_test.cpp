// docs/design.md §1.6/§3.8 status writer policy: flush interval, immediate stage changes,
// heartbeat, detail cap with exact counters, resume without double counting, the JSON patch's uid
// test, shrinking a status too large for the API server, and which patch failures are retried.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "model/kinds/vm_hyperconvergence/spec.hpp"
#include "model/status_coalescer.hpp"

using namespace schedopt;
using namespace std::chrono_literals;

namespace {

const timestamp t0 = *parse_rfc3339("2026-11-30T12:00:00Z");

kind_detail result(const std::string& name, detail_status status, const std::string& reason = "") {
  return {name, "ns", status, reason};
}

/// The status the JSON patch adds (its last operation).
nlohmann::json status_of(const std::string& patch) {
  auto ops = nlohmann::json::parse(patch);
  BOOST_REQUIRE(ops.is_array() && !ops.empty());
  BOOST_CHECK_EQUAL(ops.back().at("op"), "add");
  BOOST_CHECK_EQUAL(ops.back().at("path"), "/status");
  return ops.back().at("value");
}

status_coalescer make(std::size_t max_details = 100) {
  return status_coalescer(1s, 30s, max_details);
}

} // namespace

BOOST_AUTO_TEST_SUITE(status_coalescer_suite)

BOOST_AUTO_TEST_CASE(stage_change_is_due_at_once_and_sets_start) {
  auto c = make();
  BOOST_CHECK(!c.due(t0)); // nothing happened yet
  c.set_stage(request_stage::evaluating, request_status::in_progress, t0);
  BOOST_CHECK(c.due(t0));
  auto s = status_of(c.take_patch(t0));
  BOOST_CHECK_EQUAL(s.at("stage"), "Evaluating");
  BOOST_CHECK_EQUAL(s.at("status"), "InProgress");
  BOOST_CHECK_EQUAL(s.at("startTimestamp"), "2026-11-30T12:00:00Z");
  BOOST_CHECK_EQUAL(s.at("lastUpdateTimestamp"), "2026-11-30T12:00:00Z");
  BOOST_CHECK(!c.due(t0));
  // The next stage change is due immediately, even inside the flush interval.
  c.set_stage(request_stage::migrating, request_status::in_progress, t0 + 100ms);
  BOOST_CHECK(c.due(t0 + 100ms));
  s = status_of(c.take_patch(t0 + 100ms));
  BOOST_CHECK_EQUAL(s.at("stage"), "Migrating");
  BOOST_CHECK_EQUAL(s.at("startTimestamp"), "2026-11-30T12:00:00Z"); // not moved
  // Setting the same stage again is not a change.
  c.set_stage(request_stage::migrating, request_status::in_progress, t0 + 200ms);
  BOOST_CHECK(!c.due(t0 + 200ms));
}

BOOST_AUTO_TEST_CASE(updates_coalesce_within_the_flush_interval) {
  auto c = make();
  c.set_stage(request_stage::migrating, request_status::in_progress, t0);
  c.take_patch(t0);
  for (int i = 0; i < 10; ++i)
    c.add_result(vm_hyperconvergence_kind, result("vm" + std::to_string(i), detail_status::successful));
  BOOST_CHECK(c.dirty());
  BOOST_CHECK(!c.due(t0 + 999ms));
  BOOST_CHECK(c.next_due() == t0 + 1s);
  BOOST_CHECK(c.due(t0 + 1s));
  auto s = status_of(c.take_patch(t0 + 1s));
  BOOST_CHECK_EQUAL(s.at("vmHyperconvergence").at("successful"), 10);
  BOOST_CHECK_EQUAL(s.at("lastUpdateTimestamp"), "2026-11-30T12:00:01Z");
  BOOST_CHECK_EQUAL(c.stats().patches, 2);
  BOOST_CHECK_EQUAL(c.stats().updates, 11); // stage + 10 results
  BOOST_CHECK_EQUAL(c.stats().coalesced, 9);
}

BOOST_AUTO_TEST_CASE(heartbeat_while_in_progress_even_when_clean) {
  auto c = make();
  c.set_stage(request_stage::migrating, request_status::in_progress, t0);
  c.take_patch(t0);
  BOOST_CHECK(!c.dirty());
  BOOST_CHECK(c.next_due() == t0 + 30s);
  BOOST_CHECK(!c.due(t0 + 29s));
  BOOST_CHECK(c.due(t0 + 30s));
  auto s = status_of(c.take_patch(t0 + 30s));
  BOOST_CHECK_EQUAL(s.at("lastUpdateTimestamp"), "2026-11-30T12:00:30Z");
  BOOST_CHECK(!c.due(t0 + 31s));
}

BOOST_AUTO_TEST_CASE(no_heartbeat_while_pending) {
  auto c = make();
  c.set_stage(request_stage::pending, request_status::pending, t0);
  c.take_patch(t0);
  BOOST_CHECK(!c.due(t0 + 1h));
  BOOST_CHECK(!c.next_due().has_value());
}

BOOST_AUTO_TEST_CASE(details_are_capped_counters_stay_exact) {
  auto c = make(3);
  c.set_stage(request_stage::migrating, request_status::in_progress, t0);
  c.add_result(vm_hyperconvergence_kind, result("a", detail_status::successful));
  c.add_result(vm_hyperconvergence_kind, result("b", detail_status::failed, "MigrationRunFailed: vmim=ns/x: boom"));
  c.add_result(vm_hyperconvergence_kind, result("c", detail_status::skipped, "CoolingOff: eligible after x"));
  c.add_result(vm_hyperconvergence_kind, result("d", detail_status::failed, "MigrationTimedOut: vmim=ns/y: not final"));
  c.add_result(vm_hyperconvergence_kind, result("e", detail_status::successful));
  const auto& vh = c.current().kinds.at(vm_hyperconvergence_kind);
  BOOST_CHECK_EQUAL(vh.successful, 2);
  BOOST_CHECK_EQUAL(vh.failed, 2);
  BOOST_CHECK_EQUAL(vh.skipped, 1);
  BOOST_REQUIRE_EQUAL(vh.details.size(), 3u);
  BOOST_CHECK_EQUAL(vh.details[1].reason, "MigrationRunFailed: vmim=ns/x: boom");
  auto s = status_of(c.take_patch(t0));
  BOOST_CHECK_EQUAL(s.at("vmHyperconvergence").at("details").size(), 3u);
  BOOST_CHECK_EQUAL(s.at("vmHyperconvergence").at("failed"), 2);
  // Beyond the cap a VM still counts only once.
  BOOST_CHECK(c.has_detail(vm_hyperconvergence_kind, "ns", "e"));
  BOOST_CHECK(!c.add_result(vm_hyperconvergence_kind, result("e", detail_status::successful)));
  BOOST_CHECK_EQUAL(c.current().kinds.at(vm_hyperconvergence_kind).successful, 2);
}

BOOST_AUTO_TEST_CASE(reserved_slots_keep_room_for_migration_results) {
  auto c = make(4);
  c.reserve_details(vm_hyperconvergence_kind, 2); // two candidates will run
  for (auto name : {"s1", "s2", "s3"})
    c.add_result(vm_hyperconvergence_kind, result(name, detail_status::skipped, "NoTargetNode: x"));
  BOOST_CHECK_EQUAL(c.current().kinds.at(vm_hyperconvergence_kind).details.size(), 2u); // s3 left out
  c.add_result(vm_hyperconvergence_kind, result("m1", detail_status::successful));
  c.add_result(vm_hyperconvergence_kind, result("m2", detail_status::failed, "MigrationRunFailed: vmim=ns/m: x"));
  const auto& vh = c.current().kinds.at(vm_hyperconvergence_kind);
  BOOST_REQUIRE_EQUAL(vh.details.size(), 4u);
  BOOST_CHECK_EQUAL(vh.details[2].name, "m1");
  BOOST_CHECK_EQUAL(vh.details[3].name, "m2");
  BOOST_CHECK_EQUAL(vh.skipped, 3);
  BOOST_CHECK_EQUAL(vh.successful, 1);
  BOOST_CHECK_EQUAL(vh.failed, 1);
}

BOOST_AUTO_TEST_CASE(restore_keeps_details_and_does_not_double_count) {
  scheduling_optimization_status old;
  old.stage = request_stage::migrating;
  old.status = request_status::in_progress;
  old.start_timestamp = "2026-11-30T11:00:00Z";
  old.last_update_timestamp = "2026-11-30T11:59:50Z";
  old.kinds[vm_hyperconvergence_kind] = kind_status_block{1, 1, 0, {}};
  old.kinds.at(vm_hyperconvergence_kind).details = {result("a", detail_status::successful),
                                      result("b", detail_status::skipped, "NoTargetNode: x")};
  auto c = make();
  c.restore(old, t0);
  BOOST_CHECK(!c.dirty());
  BOOST_CHECK(c.has_detail(vm_hyperconvergence_kind, "ns", "a"));
  BOOST_CHECK(!c.has_detail(vm_hyperconvergence_kind, "ns", "c"));
  BOOST_CHECK(!c.add_result(vm_hyperconvergence_kind, result("a", detail_status::successful)));
  BOOST_CHECK(c.add_result(vm_hyperconvergence_kind, result("c", detail_status::failed, "MigrationRunFailed: vmim=ns/m: x")));
  auto s = status_of(c.take_patch(t0 + 1s));
  const auto& vh = s.at("vmHyperconvergence");
  BOOST_CHECK_EQUAL(vh.at("successful"), 1);
  BOOST_CHECK_EQUAL(vh.at("skipped"), 1);
  BOOST_CHECK_EQUAL(vh.at("failed"), 1);
  BOOST_CHECK_EQUAL(vh.at("details").size(), 3u);
  BOOST_CHECK_EQUAL(s.at("startTimestamp"), "2026-11-30T11:00:00Z");
}

BOOST_AUTO_TEST_CASE(restore_heartbeat_continues_from_last_write) {
  scheduling_optimization_status old;
  old.stage = request_stage::migrating;
  old.status = request_status::in_progress;
  old.last_update_timestamp = "2026-11-30T11:59:00Z"; // 60s before t0
  auto c = make();
  c.restore(old, t0);
  BOOST_CHECK(c.due(t0)); // heartbeat overdue
  old.last_update_timestamp = "2026-11-30T11:59:50Z";
  c.restore(old, t0);
  BOOST_CHECK(!c.due(t0));
  BOOST_CHECK(c.due(t0 + 20s));
}

BOOST_AUTO_TEST_CASE(finish_is_urgent_and_final) {
  auto c = make();
  c.set_stage(request_stage::migrating, request_status::in_progress, t0);
  c.take_patch(t0);
  c.add_result(vm_hyperconvergence_kind, result("a", detail_status::successful));
  c.finish(request_status::successful, "", t0 + 10ms);
  BOOST_CHECK(c.due(t0 + 10ms));
  auto s = status_of(c.take_patch(t0 + 10ms));
  BOOST_CHECK_EQUAL(s.at("stage"), "Final");
  BOOST_CHECK_EQUAL(s.at("status"), "Successful");
  BOOST_CHECK_EQUAL(s.at("finishTimestamp"), "2026-11-30T12:00:00Z");
  BOOST_CHECK(c.final_written());
  // Never touched again.
  BOOST_CHECK(!c.add_result(vm_hyperconvergence_kind, result("b", detail_status::successful)));
  c.set_stage(request_stage::migrating, request_status::in_progress, t0 + 1h);
  BOOST_CHECK(!c.due(t0 + 1h));
  BOOST_CHECK(!c.next_due().has_value());
  BOOST_CHECK_EQUAL(c.current().stage, request_stage::final_);
}

BOOST_AUTO_TEST_CASE(finish_without_run_sets_both_timestamps_and_reason) {
  auto c = make();
  c.set_observed_generation(3);
  c.finish(request_status::successful, "vmHyperconvergence disabled", t0);
  auto s = status_of(c.take_patch(t0));
  BOOST_CHECK_EQUAL(s.at("reason"), "vmHyperconvergence disabled");
  BOOST_CHECK_EQUAL(s.at("startTimestamp"), "2026-11-30T12:00:00Z");
  BOOST_CHECK_EQUAL(s.at("observedGeneration"), 3);
}

BOOST_AUTO_TEST_CASE(restoring_a_final_status_writes_nothing) {
  scheduling_optimization_status old;
  old.stage = request_stage::final_;
  old.status = request_status::successful;
  auto c = make();
  c.restore(old, t0);
  c.set_reason("late");
  BOOST_CHECK(!c.due(t0 + 1h));
  BOOST_CHECK_EQUAL(c.current().reason, "");
}

BOOST_AUTO_TEST_CASE(patch_tests_the_uid_then_adds_the_whole_status) {
  auto c = make();
  c.set_stage(request_stage::evaluating, request_status::in_progress, t0);
  auto p = nlohmann::json::parse(c.take_patch(t0, "uid-1"));
  BOOST_REQUIRE(p.is_array());
  BOOST_REQUIRE_EQUAL(p.size(), 2u);
  BOOST_CHECK_EQUAL(p[0], (nlohmann::json{{"op", "test"}, {"path", "/metadata/uid"}, {"value", "uid-1"}}));
  BOOST_CHECK_EQUAL(p[1].at("op"), "add");
  BOOST_CHECK_EQUAL(p[1].at("path"), "/status");
  BOOST_CHECK_EQUAL(p[1].at("value").at("stage"), "Evaluating");
  // Applied to an object with no status yet, and to one whose status it replaces; the
  // test passes only for the uid it names.
  nlohmann::json fresh{{"metadata", {{"name", "so1"}, {"uid", "uid-1"}}}};
  auto written = fresh.patch(p);
  BOOST_CHECK_EQUAL(written.at("status").at("stage"), "Evaluating");
  auto old = fresh;
  old["status"] = {{"stage", "Pending"}, {"vmHyperconvergence", {{"successful", 7}}}};
  BOOST_CHECK(!old.patch(p).at("status").contains("vmHyperconvergence"));
  auto recreated = fresh;
  recreated["metadata"]["uid"] = "uid-2";
  BOOST_CHECK_THROW(recreated.patch(p), nlohmann::json::exception);
  // Without a uid there is nothing to test.
  auto bare = nlohmann::json::parse(c.take_patch(t0));
  BOOST_REQUIRE_EQUAL(bare.size(), 1u);
  BOOST_CHECK_EQUAL(bare[0].at("path"), "/status");
}

BOOST_AUTO_TEST_CASE(shrink_halves_details_and_keeps_counters) {
  auto c = make(100);
  c.set_stage(request_stage::migrating, request_status::in_progress, t0);
  for (int i = 0; i < 10; ++i)
    c.add_result(vm_hyperconvergence_kind, result("ok" + std::to_string(i), detail_status::successful));
  for (int i = 0; i < 6; ++i)
    c.add_result(vm_hyperconvergence_kind, result("sk" + std::to_string(i), detail_status::skipped, "NoTargetNode: x"));
  c.add_result(vm_hyperconvergence_kind, result("f", detail_status::failed, "MigrationRunFailed: vmim=ns/f: boom"));
  c.finish(request_status::partial_success, "7 candidates outstanding: 1 failed, 6 skipped", t0);
  c.take_patch(t0); // answered 413
  BOOST_CHECK(!c.due(t0));
  BOOST_REQUIRE(c.shrink_details());
  BOOST_CHECK(c.due(t0)); // Final must be written again, at once
  auto s = status_of(c.take_patch(t0 + 1ms));
  auto vh = s.at("vmHyperconvergence");
  BOOST_CHECK_EQUAL(vh.at("details").size(), 8u); // 17 -> 8
  BOOST_CHECK_EQUAL(vh.at("successful"), 10);
  BOOST_CHECK_EQUAL(vh.at("skipped"), 6);
  BOOST_CHECK_EQUAL(vh.at("failed"), 1);
  BOOST_CHECK_EQUAL(s.at("stage"), "Final");
  auto reason = s.at("reason").get<std::string>();
  BOOST_CHECK_EQUAL(reason.rfind("7 candidates outstanding: 1 failed, 6 skipped", 0), 0u);
  BOOST_CHECK_NE(reason.find("details truncated"), std::string::npos);
  BOOST_CHECK(c.final_written());
  // Each further shrink halves again; with nothing left to drop it says so.
  std::vector<std::size_t> sizes;
  while (c.shrink_details())
    sizes.push_back(c.current().kinds.at(vm_hyperconvergence_kind).details.size());
  BOOST_CHECK_EQUAL(sizes.size(), 4u); // 8 -> 4 -> 2 -> 1 -> 0
  BOOST_CHECK_EQUAL(sizes.back(), 0u);
  BOOST_CHECK_EQUAL(c.current().kinds.at(vm_hyperconvergence_kind).successful, 10);
  // The note is made once, not once per shrink.
  auto r = c.current().reason;
  BOOST_CHECK_EQUAL(r.find("details truncated"), r.rfind("details truncated"));
}

BOOST_AUTO_TEST_CASE(shrink_stops_later_results_from_growing_details_back) {
  auto c = make(100);
  c.set_stage(request_stage::migrating, request_status::in_progress, t0);
  for (int i = 0; i < 8; ++i)
    c.add_result(vm_hyperconvergence_kind, result("a" + std::to_string(i), detail_status::successful));
  BOOST_REQUIRE(c.shrink_details());
  c.add_result(vm_hyperconvergence_kind, result("late", detail_status::failed, "MigrationRunFailed: vmim=ns/l: x"));
  BOOST_CHECK_EQUAL(c.current().kinds.at(vm_hyperconvergence_kind).details.size(), 4u);
  BOOST_CHECK_EQUAL(c.current().kinds.at(vm_hyperconvergence_kind).failed, 1);
  c.finish(request_status::partial_success, "", t0);
  BOOST_CHECK_NE(c.current().reason.find("details truncated"), std::string::npos);
}

BOOST_AUTO_TEST_CASE(shrink_with_no_details_changes_nothing) {
  auto c = make();
  c.finish(request_status::successful, "", t0);
  c.take_patch(t0);
  BOOST_CHECK(!c.shrink_details());
  BOOST_CHECK(!c.due(t0));
  BOOST_CHECK_EQUAL(c.current().reason, "");
}

BOOST_AUTO_TEST_CASE(patch_failures_are_classified) {
  using pf = patch_failure;
  BOOST_CHECK(classify_patch_failure(ec::server_error, 503, "unavailable") == pf::transient);
  BOOST_CHECK(classify_patch_failure(ec::too_many_requests, 429, "slow down") == pf::transient);
  BOOST_CHECK(classify_patch_failure(ec::transport_error, 0, "connection refused") == pf::transient);
  BOOST_CHECK(classify_patch_failure(ec::timeout, 504, "timeout") == pf::transient);
  BOOST_CHECK(classify_patch_failure(ec::none, 0, "request_receiver_down") == pf::transient);
  BOOST_CHECK(classify_patch_failure(ec::not_found, 404, "not found") == pf::gone);
  // PATCH has no precondition: 409 is a conflict to retry, never "gone".
  BOOST_CHECK(classify_patch_failure(ec::conflict, 409, "the object has been modified") == pf::transient);
  // The bare 422 of a JSON patch that did not apply (only its uid test can fail), with
  // or without text after it, is the request gone; a schema 422 names the object.
  BOOST_CHECK(classify_patch_failure(ec::invalid_request, 422, json_patch_not_applied) == pf::gone);
  BOOST_CHECK(classify_patch_failure(ec::invalid_request, 422,
                                     std::string{json_patch_not_applied} + ": testing value "
                                       "/metadata/uid failed: test failed") == pf::gone);
  BOOST_CHECK(classify_patch_failure(ec::invalid_request, 422, "spec.x: Invalid value") == pf::rejected);
  BOOST_CHECK(classify_patch_failure(ec::invalid_request, 422,
                                     "SchedulingOptimization.stork.libopenstorage.org \"so1\" is "
                                     "invalid: status.stage: Unsupported value: \"Nope\"")
              == pf::rejected);
  BOOST_CHECK(classify_patch_failure(ec::invalid_request, 400, json_patch_not_applied)
              == pf::rejected); // the wording counts on a 422 only
  BOOST_CHECK(classify_patch_failure(ec::invalid_request, 400, "bad patch") == pf::rejected);
  BOOST_CHECK(classify_patch_failure(ec::unauthorized, 403, "forbidden") == pf::rejected);
  BOOST_CHECK(classify_patch_failure(ec::invalid_request, 413, "") == pf::too_large);
  BOOST_CHECK(classify_patch_failure(ec::invalid_request, 422,
                                     "Request entity too large: limit is 3145728") == pf::too_large);
  BOOST_CHECK(classify_patch_failure(ec::server_error, 500, "etcdserver: request is too large")
              == pf::too_large);
}

// A kind that starts has its block, zeros included, though nothing of it ever runs: the
// CRD says the block mirrors the spec field.
BOOST_AUTO_TEST_CASE(a_started_kind_with_nothing_to_do_still_has_its_block) {
  auto c = make();
  c.set_stage(request_stage::evaluating, request_status::in_progress, t0);
  (void)c.take_patch(t0);
  c.reserve_details("podHyperconvergence", 0);
  BOOST_CHECK(!c.dirty()); // no patch of its own: it rides on the next one
  c.finish(request_status::successful, "", t0);
  auto s = status_of(c.take_patch(t0));
  BOOST_REQUIRE(s.contains("podHyperconvergence"));
  BOOST_CHECK_EQUAL(s["podHyperconvergence"],
                    (nlohmann::json{{"successful", 0}, {"skipped", 0}, {"failed", 0},
                                    {"details", nlohmann::json::array()}}));
  BOOST_CHECK(!s.contains(vm_hyperconvergence_kind)); // never started
}

// Each kind's block counts, caps and reserves on its own (docs/design.md §1, several kinds).
BOOST_AUTO_TEST_CASE(each_kind_has_its_own_block_cap_and_reservation) {
  auto c = make(2);
  c.reserve_details("podHyperconvergence", 1);
  BOOST_CHECK(c.add_result(vm_hyperconvergence_kind, result("a", detail_status::skipped, "X: y")));
  BOOST_CHECK(c.add_result(vm_hyperconvergence_kind, result("b", detail_status::skipped, "X: y")));
  // The same item in another kind is another result.
  BOOST_CHECK(c.add_result("podHyperconvergence", result("a", detail_status::skipped, "X: y")));
  BOOST_CHECK(c.add_result("podHyperconvergence", result("b", detail_status::skipped, "X: y")));
  BOOST_CHECK(!c.add_result("podHyperconvergence", result("b", detail_status::skipped, "X: y")));
  const auto& vm = c.current().kinds.at(vm_hyperconvergence_kind);
  const auto& pod = c.current().kinds.at("podHyperconvergence");
  BOOST_CHECK_EQUAL(vm.skipped, 2);
  BOOST_CHECK_EQUAL(vm.details.size(), 2u); // no reservation in this block
  BOOST_CHECK_EQUAL(pod.skipped, 2);
  BOOST_CHECK_EQUAL(pod.details.size(), 1u); // one slot kept for the engine's result
  BOOST_CHECK(c.add_result("podHyperconvergence", result("e", detail_status::successful)));
  BOOST_CHECK_EQUAL(c.current().kinds.at("podHyperconvergence").details.size(), 2u);
  // Too large: every block is halved, counters stay.
  BOOST_CHECK(c.shrink_details());
  BOOST_CHECK_EQUAL(c.current().kinds.at(vm_hyperconvergence_kind).details.size(), 1u);
  BOOST_CHECK_EQUAL(c.current().kinds.at("podHyperconvergence").details.size(), 1u);
  BOOST_CHECK_EQUAL(c.current().kinds.at("podHyperconvergence").successful, 1);
  auto s = status_of(c.take_patch(t0));
  BOOST_CHECK_EQUAL(s.at("podHyperconvergence").at("skipped"), 2);
  BOOST_CHECK_EQUAL(s.at("vmHyperconvergence").at("skipped"), 2);
}

BOOST_AUTO_TEST_SUITE_END()
