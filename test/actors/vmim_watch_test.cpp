// vmim_watch actor: follows one VMIM through a mock VMIM informer and reports its
// outcome to a mock candidate; deletes the VMIM through the mock API on timeout.
#include <boost/test/unit_test.hpp>

#include <caf/scoped_actor.hpp>

#include "actor_fixture.hpp"
#include "actors/clock.hpp"
#include "actors/kinds/vm_hyperconvergence/vmim_watch_actor.hpp"

using namespace schedopt;
using namespace schedopt::test;
using namespace std::chrono_literals;

namespace {

using vmim = virtual_machine_instance_migration;

vmim migration(const std::string& phase) {
  vmim m;
  m.metadata.name = "vm1-schedopt-abcde";
  m.metadata.namespace_ = "ns1";
  m.metadata.uid = "vmim-uid-1";
  m.metadata.resource_version = "7";
  m.vmi_name = "vm1";
  m.phase = phase;
  return m;
}

struct watch_fixture : actor_fixture {
  watch_fixture() {
    ctx.api = track(spawn_mock_api(sys, api));
    ctx.vmims = track(spawn_mock_informer(sys, vmims));
    candidate = track(spawn_mock_candidate(sys, results));
  }

  /// `timeout` is migrationTimeout; `age` how long ago KubeVirt took the VMIM up
  /// (adopted ones are older), recorded as its Scheduling transition when `known` (the
  /// state an adopted VMIM was found in) has left Pending and records none.
  void start(duration timeout = 5min, duration age = duration::zero(),
             std::optional<vmim> known = std::nullopt) {
    caf::scoped_actor parent{sys};
    ctx.config.migration_timeout = timeout;
    auto taken_up = actor_now(parent.ptr()) - std::chrono::duration_cast<timestamp::duration>(age);
    if (known && known->phase != "Pending" && known->phase_transition_timestamps.empty())
      known->phase_transition_timestamps.push_back({"Scheduling", format_rfc3339(taken_up)});
    vmim_watch_target t{"ns1", "vm1-schedopt-abcde", "vmim-uid-1", timeout, known};
    aut = track(spawn_vmim_watch(parent.ptr(), ctx, candidate, std::move(t)));
    sched.run();
  }

  /// A VMIM KubeVirt took up and ran until `timeout` passed: the watch has deleted it
  /// and awaits the abort's end.
  void run_past_timeout(duration timeout = 5min) {
    start(timeout);
    vmims->push_updated(migration("Scheduling"), migration("Running"));
    sched.run();
    sched.advance_time(timeout);
    sched.run();
  }

  /// The actors' clock (the test scheduler's time).
  timestamp now() {
    caf::scoped_actor reader{sys};
    return actor_now(reader.ptr());
  }

  std::shared_ptr<api_log> api = std::make_shared<api_log>();
  std::shared_ptr<informer_log<vmim>> vmims = std::make_shared<informer_log<vmim>>();
  std::shared_ptr<candidate_log> results = std::make_shared<candidate_log>();
  controller_context ctx;
  candidate_actor candidate;
  vmim_watch_actor aut;
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(vmim_watch, watch_fixture)

BOOST_AUTO_TEST_CASE(subscribes_to_its_vmim_only) {
  start();
  BOOST_REQUIRE_EQUAL(vmims->subscribers.size(), 1u);
  auto& sub = vmims->subscribers.front();
  BOOST_REQUIRE(sub.object);
  BOOST_CHECK_EQUAL(sub.object->first, "ns1");
  BOOST_CHECK_EQUAL(sub.object->second, "vm1-schedopt-abcde");
  BOOST_CHECK(api->calls.empty()); // never its own HTTP watch
}

BOOST_AUTO_TEST_CASE(succeeded_update_reports_successful) {
  start();
  vmims->push_added(migration("Scheduling"));
  vmims->push_updated(migration("Scheduling"), migration("Running"));
  sched.run();
  BOOST_CHECK(results->results.empty());
  vmims->push_updated(migration("Running"), migration("Succeeded"));
  sched.run();
  BOOST_REQUIRE_EQUAL(results->results.size(), 1u);
  auto& r = results->results.front();
  BOOST_CHECK_EQUAL(r.vmim_name, "vm1-schedopt-abcde");
  BOOST_CHECK_EQUAL(r.status, detail_status::successful);
  BOOST_CHECK_EQUAL(r.reason, "");
  BOOST_CHECK_EQUAL(vmims->unsubscribes, 1);
  BOOST_CHECK(vmims->subscribers.empty());
}

BOOST_AUTO_TEST_CASE(failed_phase_reports_the_failure_reason) {
  start();
  auto failed = migration("Failed");
  failed.migration = migration_state{};
  failed.migration->migration_uid = "vmim-uid-1";
  failed.migration->failed = true;
  failed.migration->failure_reason = "target pod never became ready";
  vmims->push_updated(migration("Running"), failed);
  sched.run();
  BOOST_REQUIRE_EQUAL(results->results.size(), 1u);
  BOOST_CHECK_EQUAL(results->results.front().status, detail_status::failed);
  BOOST_CHECK_EQUAL(results->results.front().reason,
                    "MigrationRunFailed: vmim=ns1/vm1-schedopt-abcde: target pod never became ready");
}

BOOST_AUTO_TEST_CASE(a_failure_waits_for_kubevirts_cause_copied_a_reconcile_later) {
  ctx.config.failure_cause_wait = 10s;
  start();
  vmims->push_updated(migration("Running"), migration("Failed")); // KubeVirt's first write
  sched.run();
  BOOST_CHECK(results->results.empty());
  auto copied = migration("Failed");
  copied.migration = migration_state{};
  copied.migration->migration_uid = "vmim-uid-1";
  copied.migration->failed = true;
  copied.migration->failure_reason = "Live migration failed unable to attach volume";
  vmims->push_updated(migration("Failed"), copied);
  sched.run();
  BOOST_REQUIRE_EQUAL(results->results.size(), 1u);
  BOOST_CHECK_EQUAL(results->results.front().reason,
                    "MigrationRunFailed: vmim=ns1/vm1-schedopt-abcde: Live migration failed unable to attach volume");
  BOOST_CHECK(api->calls_of("list").empty()); // the cause came: no events read
}

BOOST_AUTO_TEST_CASE(a_failure_without_a_cause_is_told_in_kubevirts_event_words) {
  ctx.config.failure_cause_wait = 10s;
  api->list_answer = [](const k8s::list_request& r) {
    k8s::list_response out;
    if (r.res == k8s::resources::events)
      out.pages.push_back(R"({"kind":"EventList","metadata":{"resourceVersion":"9"},"items":[
        {"metadata":{"name":"e1","namespace":"ns1"},"involvedObject":{"kind":"VirtualMachineInstanceMigration",
         "name":"vm1-schedopt-abcde","namespace":"ns1","uid":"vmim-uid-1"},"type":"Normal","reason":"SuccessfulDelete",
         "message":"unschedulable pod ns1/virt-launcher-vm1-vmim- timeout period exceeded","lastTimestamp":"2026-12-03T10:05:00Z"},
        {"metadata":{"name":"e2","namespace":"ns1"},"involvedObject":{"kind":"VirtualMachineInstanceMigration",
         "name":"vm1-schedopt-abcde","namespace":"ns1","uid":"vmim-uid-1"},"type":"Warning","reason":"FailedMigration",
         "message":"Migration target pod was removed during active migration.","lastTimestamp":"2026-12-03T10:05:01Z"}]})");
    return out;
  };
  start();
  vmims->push_updated(migration("Scheduling"), migration("Failed"));
  sched.run();
  sched.advance_time(9s);
  sched.run();
  BOOST_CHECK(results->results.empty());
  sched.advance_time(1s);
  sched.run();
  auto lists = api->calls_of("list");
  BOOST_REQUIRE_EQUAL(lists.size(), 1u);
  BOOST_CHECK(lists.front().res == k8s::resources::events);
  BOOST_CHECK_EQUAL(lists.front().namespace_, "ns1");
  BOOST_CHECK_EQUAL(lists.front().field_selector, "involvedObject.uid=vmim-uid-1");
  BOOST_REQUIRE_EQUAL(results->results.size(), 1u);
  BOOST_CHECK_EQUAL(results->results.front().reason,
                    "MigrationRunFailed: vmim=ns1/vm1-schedopt-abcde: Migration target pod was removed during "
                    "active migration. (unschedulable pod ns1/virt-launcher-vm1-vmim- timeout period exceeded)");
}

BOOST_AUTO_TEST_CASE(a_failure_with_no_cause_anywhere_is_reported_after_the_wait) {
  ctx.config.failure_cause_wait = 10s;
  start();
  vmims->push_updated(migration("Scheduling"), migration("Failed"));
  sched.run();
  sched.advance_time(10s);
  sched.run();
  BOOST_REQUIRE_EQUAL(results->results.size(), 1u);
  BOOST_CHECK_EQUAL(results->results.front().reason,
                    "MigrationRunFailed: vmim=ns1/vm1-schedopt-abcde: migration failed");
}

BOOST_AUTO_TEST_CASE(deleted_before_final_is_a_failure) {
  start();
  vmims->push_deleted(migration("Running"));
  sched.run();
  BOOST_REQUIRE_EQUAL(results->results.size(), 1u);
  BOOST_CHECK_EQUAL(results->results.front().status, detail_status::failed);
  BOOST_CHECK_EQUAL(results->results.front().reason,
                    "MigrationRunFailed: vmim=ns1/vm1-schedopt-abcde: deleted before completion");
}

BOOST_AUTO_TEST_CASE(only_the_first_outcome_counts) {
  start();
  vmims->push_updated(migration("Running"), migration("Succeeded"));
  sched.run();
  caf::anon_send(aut, object_deleted<vmim>{migration("Succeeded")});
  sched.advance_time(10min);
  sched.run();
  BOOST_CHECK_EQUAL(results->results.size(), 1u);
  BOOST_CHECK(api->calls_of("delete").empty()); // no timeout after the outcome
}

BOOST_AUTO_TEST_CASE(timeout_deletes_the_vmim_and_reports_timed_out) {
  start(5min);
  vmims->push_updated(migration("Scheduling"), migration("Running"));
  sched.run();
  sched.advance_time(4min + 59s);
  sched.run();
  BOOST_CHECK(results->results.empty());
  BOOST_CHECK(api->calls_of("delete").empty());
  sched.advance_time(1s);
  sched.run();
  auto deletes = api->calls_of("delete");
  BOOST_REQUIRE_EQUAL(deletes.size(), 1u);
  BOOST_CHECK(deletes.front().res == k8s::resources::vmims);
  BOOST_CHECK_EQUAL(deletes.front().namespace_, "ns1");
  BOOST_CHECK_EQUAL(deletes.front().name, "vm1-schedopt-abcde");
  // Only the VMIM that timed out: one re-created under its name since is not touched.
  BOOST_CHECK_EQUAL(deletes.front().precondition_uid, "vmim-uid-1");
  BOOST_CHECK(results->results.empty()); // KubeVirt aborts; its finalizer holds the VMIM
  vmims->push_deleted(migration("Running")); // aborted: gone without a final phase
  sched.run();
  BOOST_REQUIRE_EQUAL(results->results.size(), 1u);
  BOOST_CHECK_EQUAL(results->results.front().status, detail_status::failed);
  BOOST_CHECK_EQUAL(results->results.front().reason,
                    "MigrationTimedOut: vmim=ns1/vm1-schedopt-abcde: not final after 5m0s");
}

BOOST_AUTO_TEST_CASE(a_timed_out_vmim_replaced_under_its_name_counts_as_gone) {
  // 409: the uid precondition failed, the name holds another VMIM. Nothing is retried and
  // the outcome is the timeout, as when the delete succeeds.
  api->respond = [](const api_call& c) -> api_answer {
    if (c.verb == "delete")
      return api_error(ec::conflict, 409,
                       "Operation cannot be fulfilled on virtualmachineinstancemigrations.kubevirt.io "
                       "\"vm1-schedopt-abcde\": Precondition failed: UID in precondition: vmim-uid-1, "
                       "UID in object meta: vmim-uid-2");
    return k8s::api_response{200, "{}"};
  };
  start(5min);
  vmims->push_updated(migration("Pending"), migration("Scheduling"));
  sched.run();
  sched.advance_time(5min);
  sched.run();
  BOOST_CHECK_EQUAL(api->calls_of("delete").size(), 1u);
  BOOST_REQUIRE_EQUAL(results->results.size(), 1u);
  BOOST_CHECK_EQUAL(results->results.front().status, detail_status::failed);
  BOOST_CHECK_EQUAL(results->results.front().reason,
                    "MigrationTimedOut: vmim=ns1/vm1-schedopt-abcde: not final after 5m0s");
}

BOOST_AUTO_TEST_CASE(an_adopted_vmim_past_its_timeout_that_succeeded_is_successful) {
  // Found Running by the snapshot, Succeeded by now (the informer replays it), created
  // 40 minutes ago with a 30-minute timeout: its phase counts, it is not deleted.
  vmims->objects.push_back(migration("Succeeded"));
  start(30min, 40min, migration("Running"));
  sched.advance_time(1s);
  sched.run();
  BOOST_REQUIRE_EQUAL(results->results.size(), 1u);
  BOOST_CHECK_EQUAL(results->results.front().status, detail_status::successful);
  BOOST_CHECK(api->calls_of("delete").empty());
}

BOOST_AUTO_TEST_CASE(an_adopted_vmim_known_final_is_reported_without_subscribing) {
  start(30min, 40min, migration("Succeeded"));
  BOOST_REQUIRE_EQUAL(results->results.size(), 1u);
  BOOST_CHECK_EQUAL(results->results.front().status, detail_status::successful);
  BOOST_CHECK(api->calls_of("delete").empty());
}

BOOST_AUTO_TEST_CASE(an_adopted_vmim_still_running_past_its_timeout_names_the_configured_timeout) {
  vmims->objects.push_back(migration("Running"));
  start(30min, 40min, migration("Running"));
  sched.advance_time(1s);
  sched.run();
  BOOST_CHECK_EQUAL(api->calls_of("delete").size(), 1u);
  auto aborted = migration("Failed"); // KubeVirt's abort ends it Failed
  vmims->push_updated(migration("Running"), aborted);
  sched.run();
  BOOST_REQUIRE_EQUAL(results->results.size(), 1u);
  BOOST_CHECK_EQUAL(results->results.front().reason,
                    "MigrationTimedOut: vmim=ns1/vm1-schedopt-abcde: not final after 30m0s");
}

BOOST_AUTO_TEST_CASE(the_timeout_runs_from_the_hand_off) {
  // Adopted 20 minutes after KubeVirt took it up, with a 30-minute timeout: 10 minutes are left.
  vmims->objects.push_back(migration("Running"));
  start(30min, 20min, migration("Running"));
  sched.advance_time(9min + 59s);
  sched.run();
  BOOST_CHECK(results->results.empty());
  sched.advance_time(1s);
  sched.run();
  BOOST_CHECK_EQUAL(api->calls_of("delete").size(), 1u);
}

BOOST_AUTO_TEST_CASE(time_queued_in_pending_is_not_the_migrations) {
  // An hour behind KubeVirt's cap, then taken up: the 5 minutes start there.
  start(5min);
  vmims->push_updated(migration(""), migration("Pending"));
  sched.run();
  sched.advance_time(60min);
  sched.run();
  BOOST_CHECK(api->calls_of("delete").empty());
  BOOST_CHECK(results->results.empty());
  auto taken_up = migration("Scheduling");
  taken_up.phase_transition_timestamps = {{"Pending", format_rfc3339(now() - 60min)},
                                          {"Scheduling", format_rfc3339(now())}};
  vmims->push_updated(migration("Pending"), taken_up);
  sched.run();
  sched.advance_time(4min + 59s);
  sched.run();
  BOOST_CHECK(api->calls_of("delete").empty());
  sched.advance_time(1s);
  sched.run();
  BOOST_CHECK_EQUAL(api->calls_of("delete").size(), 1u);
}

BOOST_AUTO_TEST_CASE(a_migration_that_completes_despite_the_abort_is_successful) {
  // The delete after hand-off only asks KubeVirt to abort; the migration won the race.
  run_past_timeout();
  BOOST_REQUIRE_EQUAL(api->calls_of("delete").size(), 1u);
  BOOST_CHECK(results->results.empty()); // the abort's end is awaited
  vmims->push_updated(migration("Running"), migration("Succeeded"));
  sched.run();
  BOOST_REQUIRE_EQUAL(results->results.size(), 1u);
  BOOST_CHECK_EQUAL(results->results.front().status, detail_status::successful);
}

BOOST_AUTO_TEST_CASE(an_abort_that_never_ends_is_reported_as_the_timeout) {
  run_past_timeout();
  BOOST_CHECK(results->results.empty());
  sched.advance_time(2min);
  sched.run();
  BOOST_REQUIRE_EQUAL(results->results.size(), 1u);
  BOOST_CHECK_EQUAL(results->results.front().reason,
                    "MigrationTimedOut: vmim=ns1/vm1-schedopt-abcde: not final after 5m0s");
}

BOOST_AUTO_TEST_SUITE_END()
