// The simulated KubeVirt's timing: held VMIMs requeued after 5s (not FIFO), Running timed
// by VM memory over a bandwidth and cut by virt-launcher's completion timeout, and a
// delete after hand-off racing completion. Stepped in simulated time with tick().
#include <boost/test/unit_test.hpp>

#include "kubevirt_test_fixture.hpp"
#include "model/timestamp.hpp"
#include "sim/kubevirt_controller.hpp"
#include "sim/migration_transfer.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace schedopt::sim::testing;
using namespace std::chrono_literals;

namespace {

constexpr int64_t gi = 1024LL * 1024 * 1024;
constexpr int64_t mi = 1024LL * 1024;

scenario_options cluster() {
  scenario_options o;
  o.nodes = 4;
  o.vmis = 8;
  o.seed = 5;
  return o;
}

kubevirt_controller_options exact(std::chrono::milliseconds running = 50ms) {
  kubevirt_controller_options o;
  o.stages = default_migration_stages(10ms, running, 0.0);
  o.seed = 3;
  return o;
}

struct clock_stepper {
  kubevirt_controller& controller;
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
  void step(std::chrono::milliseconds dt = 100ms) { controller.tick(now += dt); }
};

std::string ns_of(const json& o) { return o["metadata"]["namespace"]; }
std::string name_of(const json& o) { return o["metadata"]["name"]; }

/// Every phase a VMIM was seen in, from the store's history (it may be gone by now).
std::set<std::string> phases_seen(object_store& store, uint64_t since, const std::string& name) {
  std::set<std::string> out;
  auto events = store.events_since(kubevirt::vmim_key, "", since);
  BOOST_REQUIRE(events);
  for (const auto& e : *events)
    if (e.object["metadata"]["name"] == name)
      out.insert(phase_of(e.object));
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(kubevirt_timing_suite)

BOOST_AUTO_TEST_CASE(data_size_and_bandwidth_as_virt_launcher_counts_them) {
  BOOST_TEST(migration_data_size_scaled(64 * gi) == 69); // ScaledValue(Giga) rounds up
  BOOST_TEST(migration_data_size_scaled(0) == 0);
  migration_config c;
  BOOST_TEST(effective_bandwidth(gi, c) == gi);
  c.bandwidth_per_migration = 64 * mi;
  BOOST_TEST(effective_bandwidth(gi, c) == 64 * mi);
  BOOST_TEST(effective_bandwidth(0, c) == 64 * mi);
  json vmi = {{"spec", {{"domain", {{"resources", {{"requests", {{"memory", "2Gi"}}}}}}}}}};
  BOOST_TEST(vmi_migration_memory_bytes(vmi) == 2 * gi);
  vmi["spec"]["domain"]["memory"]["guest"] = "64Gi";
  BOOST_TEST(vmi_migration_memory_bytes(vmi) == 64 * gi);
}

// migration.go handleTargetPodCreation requeues a held migration After 5s: a migration
// created after the slot frees takes it before the held one is looked at again.
BOOST_AUTO_TEST_CASE(a_held_vmim_is_looked_at_again_after_five_seconds_not_in_fifo_order) {
  populated_store w{cluster()};
  auto o = exact();
  o.migrations.parallel_migrations_per_cluster = 1;
  BOOST_REQUIRE(o.held_requeue == 5s); // KubeVirt's value is the default
  kubevirt_controller c{w.store, o};
  clock_stepper s{c};
  auto vmis = w.vmis();
  auto first = w.migrate(vmis[0]);
  auto held = w.migrate(vmis[1]);
  BOOST_REQUIRE(first && held);
  s.step(); // both Pending
  s.step(); // first admitted, `held` held back from here
  auto held_at = s.now;
  for (int i = 0; i < 20 && phase_of(w.vmim(*first)) != "Succeeded"; ++i)
    s.step();
  BOOST_REQUIRE_EQUAL(phase_of(w.vmim(*first)), "Succeeded");
  auto late = w.migrate(vmis[2]);
  BOOST_REQUIRE(late);
  s.step(); // Pending
  s.step(); // looked at on creation: the free slot is its
  s.step();
  BOOST_CHECK_EQUAL(phase_of(w.vmim(*late)), "Scheduling");
  BOOST_CHECK_EQUAL(phase_of(w.vmim(*held)), "Pending");
  while (s.now < held_at + 5s) {
    BOOST_REQUIRE_EQUAL(phase_of(w.vmim(*held)), "Pending");
    s.step();
  }
  for (int i = 0; i < 20 && phase_of(w.vmim(*held)) == "Pending"; ++i)
    s.step();
  BOOST_CHECK_EQUAL(phase_of(w.vmim(*held)), "Scheduling");
  BOOST_CHECK_EQUAL(phase_of(w.vmim(*late)), "Succeeded");
}

namespace {

/// A 64 GiB VM (guest memory) migrated at 32 MiB/s: the copy takes 2048 s, over half an
/// hour of simulated time. Returns the VMIM as it ends, and its phase one tick before.
struct big_vm_run {
  json vmim;
  std::string first_final_reason = "unset";
  std::chrono::milliseconds running{0};
};

big_vm_run migrate_64gib(int64_t completion_timeout_per_gib) {
  populated_store w{cluster()};
  auto vmi = w.vmis().front();
  BOOST_REQUIRE(w.store.modify(
      kubevirt::vmi_key, ns_of(vmi), name_of(vmi),
      [](json& obj) {
        obj["spec"]["domain"]["memory"]["guest"] = "64Gi";
        return true;
      },
      false));
  auto o = exact();
  o.migration_bandwidth = 32 * mi;
  o.migrations.completion_timeout_per_gib = completion_timeout_per_gib;
  kubevirt_controller c{w.store, o};
  clock_stepper s{c};
  auto made = w.migrate(vmi);
  BOOST_REQUIRE(made);
  big_vm_run run;
  std::chrono::system_clock::time_point running_since{};
  for (int i = 0; i < 5000; ++i) {
    s.step(1s);
    auto m = w.vmim(*made);
    if (phase_of(m) == "Running" && running_since == std::chrono::system_clock::time_point{})
      running_since = s.now;
    if (phase_of(m) == "Succeeded" || phase_of(m) == "Failed") {
      run.first_final_reason = m.value("/status/migrationState/failureReason"_json_pointer, std::string{});
      run.running = std::chrono::duration_cast<std::chrono::milliseconds>(s.now - running_since);
      s.step(1s); // the reconcile that copies the cause over
      run.vmim = w.vmim(*made);
      return run;
    }
  }
  BOOST_FAIL("the migration never ended");
  return run;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_64_gib_vm_completes_within_its_completion_timeout) {
  // 40 s/GiB × 69 (64Gi in decimal GB, rounded up) = 2760 s > 2048 s.
  auto run = migrate_64gib(40);
  BOOST_CHECK_EQUAL(phase_of(run.vmim), "Succeeded");
  BOOST_CHECK(run.running >= 2048s);
  BOOST_CHECK(run.running > 30min);
}

BOOST_AUTO_TEST_CASE(a_64_gib_vm_past_its_completion_timeout_is_aborted_by_virt_launcher) {
  // 25 s/GiB × 69 = 1725 s < 2048 s: the monitor aborts once 1726 whole seconds passed.
  auto run = migrate_64gib(25);
  BOOST_REQUIRE_EQUAL(phase_of(run.vmim), "Failed");
  BOOST_CHECK_EQUAL(run.first_final_reason, ""); // phase=Failed first, the cause after
  auto state = run.vmim["status"]["migrationState"];
  BOOST_CHECK_EQUAL(state.value("failureReason", std::string{}),
                    "Live migration is not completed after 1725 seconds and has been aborted");
  BOOST_CHECK_EQUAL(state.value("abortStatus", std::string{}), "Succeeded");
  BOOST_CHECK(run.running >= 1726s && run.running < 1730s);
}

namespace {

/// Walks one migration to Running (Running lasts exactly 2 s), then deletes its VMIM
/// `after` into Running. Returns the store's history since the delete.
struct abort_race {
  populated_store w{cluster()};
  kubevirt_controller c;
  clock_stepper s{c};
  json vmi, made;
  std::string source;
  uint64_t since = 0;

  abort_race() : c(w.store, exact(2000ms)) {
    vmi = w.vmis().front();
    source = vmi["status"]["nodeName"];
    auto m = w.migrate(vmi);
    BOOST_REQUIRE(m);
    made = *m;
    for (int i = 0; i < 20 && phase_of(w.vmim(made)) != "Running"; ++i)
      s.step();
    BOOST_REQUIRE_EQUAL(phase_of(w.vmim(made)), "Running");
  }
  void delete_after(std::chrono::milliseconds into_running) {
    for (auto t = 0ms; t < into_running; t += 100ms)
      s.step();
    since = w.store.resource_version();
    auto deleted = w.store.remove(kubevirt::vmim_key, ns_of(made), name_of(made));
    BOOST_REQUIRE(deleted);
    BOOST_REQUIRE((*deleted)["metadata"].contains("deletionTimestamp"));
  }
  bool gone() { return !w.store.get(kubevirt::vmim_key, ns_of(made), name_of(made)); }
  json vmi_now() { return w.vmi(ns_of(vmi), name_of(vmi)); }
};

} // namespace

BOOST_AUTO_TEST_CASE(an_abort_landing_after_completion_loses_and_the_migration_succeeds) {
  abort_race r;
  r.delete_after(1200ms); // 0.8 s left, the abort needs 1 s
  for (int i = 0; i < 30 && !r.gone(); ++i)
    r.s.step();
  BOOST_REQUIRE(r.gone());
  auto phases = phases_seen(r.w.store, r.since, name_of(r.made));
  BOOST_CHECK(phases.count("Succeeded"));
  BOOST_CHECK(!phases.count("Failed"));
  auto moved = r.vmi_now();
  BOOST_CHECK(moved["status"]["nodeName"] != r.source);
  auto state = moved["status"]["migrationState"];
  BOOST_CHECK_EQUAL(state.value("abortRequested", false), true);
  BOOST_CHECK(!state.value("failed", false));
  BOOST_CHECK(state.value("abortStatus", std::string{}) != "Succeeded");
}

BOOST_AUTO_TEST_CASE(an_abort_landing_first_fails_the_migration_and_then_releases_the_vmim) {
  abort_race r;
  r.delete_after(0ms); // 2 s left
  r.s.step();
  // Still there, deletionTimestamp set, still Running: the abort is only requested.
  auto m = r.w.vmim(r.made);
  BOOST_REQUIRE(!m.is_null());
  BOOST_CHECK(m["metadata"].contains("deletionTimestamp"));
  BOOST_CHECK_EQUAL(phase_of(m), "Running");
  bool condition = false;
  for (const auto& c : m["status"].value("conditions", json::array()))
    condition = condition || c["type"] == "migrationAbortRequested";
  BOOST_CHECK(condition);
  BOOST_CHECK_EQUAL(r.vmi_now()["status"]["migrationState"].value("abortRequested", false), true);
  for (int i = 0; i < 30 && phase_of(r.w.vmim(r.made)) == "Running"; ++i)
    r.s.step();
  m = r.w.vmim(r.made);
  BOOST_REQUIRE_EQUAL(phase_of(m), "Failed"); // final, the finalizer not yet released
  BOOST_CHECK_EQUAL(m["status"]["migrationState"].value("failureReason", std::string{}), "Live migration aborted ");
  r.s.step();
  BOOST_CHECK(r.gone());
  BOOST_CHECK_EQUAL(r.vmi_now()["status"]["nodeName"], r.source);
  BOOST_CHECK(!phases_seen(r.w.store, r.since, name_of(r.made)).count("Succeeded"));
}

BOOST_AUTO_TEST_SUITE_END()
