// SPEC §3 VMIM create body and outcome classification with exact reason texts.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "model/vmim_outcome.hpp"

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

BOOST_AUTO_TEST_CASE(failure_reason_sources_in_order) {
  auto m = vmim("Failed");
  BOOST_CHECK_EQUAL(classify_migration(m).reason,
                    "MigrationRunFailed: vmim=ns/vm1-schedopt-abcde: migration failed");
  m.conditions.push_back({"Failed", "True", "MigrationFailed", "unable to attach volume", ""});
  BOOST_CHECK_EQUAL(classify_migration(m).reason,
                    "MigrationRunFailed: vmim=ns/vm1-schedopt-abcde: unable to attach volume");
  m.migration = migration_state{};
  m.migration->failure_reason = "libvirt error";
  BOOST_CHECK_EQUAL(classify_migration(m).reason,
                    "MigrationRunFailed: vmim=ns/vm1-schedopt-abcde: libvirt error");
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
