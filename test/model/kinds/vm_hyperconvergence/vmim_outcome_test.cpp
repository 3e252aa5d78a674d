// docs/design.md §3.1, §3.6: VMIM create body and outcome classification with exact reason texts.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "model/kinds/vm_hyperconvergence/vmim_outcome.hpp"

using namespace schedopt;
using namespace std::chrono_literals;

namespace {

virtual_machine_instance_migration vmim(const std::string& phase) {
  virtual_machine_instance_migration m;
  m.metadata.namespace_ = "ns";
  m.metadata.name = "vm1-schedopt-abcde";
  m.phase = phase;
  return m;
}

} // namespace

BOOST_AUTO_TEST_SUITE(vmim_outcome)

BOOST_AUTO_TEST_CASE(phases_table) {
  for (const auto* phase : {"", "Pending", "Scheduling", "Scheduled", "PreparingTarget",
                            "TargetReady", "Running", "Unknown"}) {
    BOOST_TEST_CONTEXT("phase " << phase) {
      auto o = classify_migration(vmim(phase));
      BOOST_CHECK(o.progress == migration_progress::running);
      BOOST_CHECK(o.reason.empty());
    }
  }
  auto ok = classify_migration(vmim("Succeeded"));
  BOOST_CHECK(ok.progress == migration_progress::succeeded);
  BOOST_CHECK(ok.reason.empty());
}

BOOST_AUTO_TEST_CASE(completed_and_not_failed_is_success_before_the_phase_says_so) {
  auto m = vmim("Running");
  m.migration = migration_state{};
  m.migration->completed = true;
  BOOST_CHECK(classify_migration(m).progress == migration_progress::succeeded);
  m.migration->completed = false;
  BOOST_CHECK(classify_migration(m).progress == migration_progress::running);
  m.migration->completed = true;
  m.migration->failed = true;
  m.migration->failure_reason = "target pod died";
  auto o = classify_migration(m);
  BOOST_CHECK(o.progress == migration_progress::failed);
  BOOST_CHECK_EQUAL(o.reason, "MigrationRunFailed: vmim=ns/vm1-schedopt-abcde: target pod died");
}

BOOST_AUTO_TEST_CASE(a_failure_without_its_own_cause_is_not_known_yet) {
  auto m = vmim("Failed");
  m.metadata.uid = "uid-this";
  auto bare = classify_migration(m);
  BOOST_CHECK(bare.progress == migration_progress::failed);
  BOOST_CHECK(!bare.cause_known);
  BOOST_CHECK_EQUAL(bare.reason, "MigrationRunFailed: vmim=ns/vm1-schedopt-abcde: migration failed");
  // KubeVirt's conditions carry no message: they say nothing of the cause.
  m.conditions.push_back({"migrationAbortRequested", "True", "", "", ""});
  BOOST_CHECK(!classify_migration(m).cause_known);
  // KubeVirt 1.3 copies the VMI's state whatever migration it names.
  m.migration = migration_state{};
  m.migration->migration_uid = "uid-other";
  m.migration->failure_reason = "another migration's cause";
  BOOST_CHECK(!classify_migration(m).cause_known);
  m.migration->migration_uid = "uid-this";
  m.migration->failure_reason = "libvirt error";
  auto known = classify_migration(m);
  BOOST_CHECK(known.cause_known);
  BOOST_CHECK_EQUAL(known.reason, "MigrationRunFailed: vmim=ns/vm1-schedopt-abcde: libvirt error");
}

BOOST_AUTO_TEST_CASE(events_give_kubevirts_words_for_a_failure_before_hand_off) {
  auto ev = [](std::string type, std::string reason, std::string message, std::string when) {
    event e;
    e.type = std::move(type);
    e.reason = std::move(reason);
    e.message = std::move(message);
    e.last_timestamp = std::move(when);
    return e;
  };
  BOOST_CHECK_EQUAL(failure_from_events({}), "");
  std::vector<event> events{
    ev("Warning", "migrationTargetPodUnschedulable", "Migration target pod for VMI [ns/vm1] is currently unschedulable.",
       "2026-12-03T10:00:00Z"),
    ev("Normal", "SuccessfulDelete", "unschedulable pod ns/virt-launcher-vm1-abcde timeout period exceeded",
       "2026-12-03T10:05:00Z"),
    ev("Warning", "FailedMigration", "Migration target pod was removed during active migration.",
       "2026-12-03T10:05:01Z"),
  };
  BOOST_CHECK_EQUAL(failure_from_events(events),
                    "Migration target pod was removed during active migration. (unschedulable pod "
                    "ns/virt-launcher-vm1-abcde timeout period exceeded)");
  events.push_back(ev("Warning", "FailedMigration", "Migration failed due to being canceled", "2026-12-03T10:05:02Z"));
  BOOST_CHECK(failure_from_events(events).rfind("Migration failed due to being canceled", 0) == 0);
}

BOOST_AUTO_TEST_CASE(failure_reason_is_capped) {
  auto m = vmim("Failed");
  m.migration = migration_state{};
  m.migration->failure_reason = std::string(1000, 'x');
  BOOST_CHECK_EQUAL(classify_migration(m).reason.size(), 256u);
}

BOOST_AUTO_TEST_CASE(synthesised_reasons) {
  BOOST_CHECK_EQUAL(timed_out_reason("ns", "m", 30min),
                    "MigrationTimedOut: vmim=ns/m: not final after 30m0s");
  BOOST_CHECK_EQUAL(timed_out_reason("ns", "m", 90s),
                    "MigrationTimedOut: vmim=ns/m: not final after 1m30s");
  BOOST_CHECK_EQUAL(deleted_reason("ns", "m"),
                    "MigrationRunFailed: vmim=ns/m: deleted before completion");
  BOOST_CHECK_EQUAL(create_failed_reason("admission webhook \"migration-create-validator."
                                         "kubevirt.io\" denied the request: VMI is not live "
                                         "migratable"),
                    "MigrationCreateFailed: admission webhook \"migration-create-validator."
                    "kubevirt.io\" denied the request: VMI is not live migratable");
}

BOOST_AUTO_TEST_CASE(create_body_pinned) {
  migration_request r{"req-1", "uid-123", "ns", "vm1", "node-a", "node-b", true};
  auto body = migration_create_body(r);
  auto expected = nlohmann::json::parse(R"({
    "apiVersion": "kubevirt.io/v1",
    "kind": "VirtualMachineInstanceMigration",
    "metadata": {
      "name": "vm1-schedopt-uid123",
      "namespace": "ns",
      "labels": {"app.kubernetes.io/managed-by": "schedopt",
                 "schedopt.libopenstorage.org/request-uid": "uid-123"},
      "annotations": {"schedopt.libopenstorage.org/request": "req-1",
                      "schedopt.libopenstorage.org/source-node": "node-a"}
    },
    "spec": {"vmiName": "vm1", "addedNodeSelector": {"kubernetes.io/hostname": "node-b"}}
  })");
  BOOST_CHECK_EQUAL(body.dump(), expected.dump());
}

BOOST_AUTO_TEST_CASE(migration_name_is_fixed_per_request_and_vmi) {
  auto uid = "3f2a9c1e-77b0-4c1d-9e5f-0a1b2c3d4e5f";
  BOOST_CHECK_EQUAL(migration_name("vm-7", uid), "vm-7-schedopt-3f2a9c1e77");
  BOOST_CHECK_EQUAL(migration_name("vm-7", uid), migration_name("vm-7", uid));
  BOOST_CHECK_NE(migration_name("vm-7", uid), migration_name("vm-7", "8d0e4b6a-0000-0000-0000-000000000000"));
  BOOST_CHECK_EQUAL(migration_name("VM", "--"), "VM-schedopt-0");
  auto longest = migration_name(std::string(300, 'a'), uid);
  BOOST_CHECK_EQUAL(longest.size(), 253u);
  BOOST_CHECK(longest.rfind("-schedopt-3f2a9c1e77") == 253 - 20);
}

BOOST_AUTO_TEST_CASE(create_body_unpinned_has_no_selector) {
  migration_request r{"req-1", "uid-123", "ns", "vm1", "node-a", "node-b", false};
  auto body = migration_create_body(r);
  BOOST_CHECK(!body["spec"].contains("addedNodeSelector"));
  BOOST_CHECK_EQUAL(body["spec"]["vmiName"], "vm1");
}

BOOST_AUTO_TEST_CASE(ownership_and_selector) {
  auto m = vmim("Running");
  BOOST_CHECK(!is_schedopt_migration(m));
  m.metadata.labels[labels::managed_by] = "someone";
  BOOST_CHECK(!is_schedopt_migration(m));
  m.metadata.labels[labels::managed_by] = "schedopt";
  BOOST_CHECK(is_schedopt_migration(m));
  BOOST_CHECK_EQUAL(request_migrations_selector("u1"),
                    "app.kubernetes.io/managed-by=schedopt,"
                    "schedopt.libopenstorage.org/request-uid=u1");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(vmim_hand_off)

BOOST_AUTO_TEST_CASE(pending_is_not_handed_off_and_the_first_later_phase_is) {
  virtual_machine_instance_migration m;
  BOOST_TEST(!handed_off(m)); // no phase yet
  m.phase = "Pending";
  m.phase_transition_timestamps = {{"Pending", "2026-12-04T10:00:00Z"}};
  BOOST_TEST(!handed_off(m));
  BOOST_TEST(!hand_off_time(m));
  m.phase = "Running";
  m.phase_transition_timestamps.push_back({"Running", "2026-12-04T10:20:09Z"});
  m.phase_transition_timestamps.push_back({"Scheduling", "2026-12-04T10:20:00Z"});
  BOOST_TEST(handed_off(m));
  auto when = hand_off_time(m);
  BOOST_REQUIRE(when);
  BOOST_TEST(format_rfc3339(*when) == "2026-12-04T10:20:00Z");
}

BOOST_AUTO_TEST_CASE(a_handed_off_vmim_without_timestamps_has_no_time) {
  virtual_machine_instance_migration m;
  m.phase = "Scheduling";
  BOOST_TEST(handed_off(m));
  BOOST_TEST(!hand_off_time(m)); // the watch counts from when it saw it
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(vmim_blocked_by_backup)

BOOST_AUTO_TEST_CASE(a_pending_vmim_held_for_a_backup_gives_kubevirts_words) {
  auto m = vmim("Pending");
  BOOST_TEST(!blocked_by_backup(m));
  m.conditions.push_back({"migrationBlockedByBackup", "True", "BackupInProgress",
                          "Waiting for backup nightly-vm1 to complete", ""});
  auto words = blocked_by_backup(m);
  BOOST_REQUIRE(words);
  BOOST_TEST(*words == "Waiting for backup nightly-vm1 to complete");
  BOOST_TEST(backup_in_progress_reason("ns", m.metadata.name, *words)
             == "BackupInProgress: vmim=ns/vm1-schedopt-abcde: Waiting for backup nightly-vm1 to complete");
}

BOOST_AUTO_TEST_CASE(a_false_condition_or_a_migration_past_pending_is_not_blocked) {
  auto m = vmim("Pending");
  m.conditions.push_back({"migrationBlockedByBackup", "False", "BackupInProgress", "", ""});
  BOOST_TEST(!blocked_by_backup(m));
  m.conditions.back().status = "True";
  m.phase = "Scheduling"; // the backup ended and KubeVirt took it up: nothing holds it now
  BOOST_TEST(!blocked_by_backup(m));
}

BOOST_AUTO_TEST_SUITE_END()
