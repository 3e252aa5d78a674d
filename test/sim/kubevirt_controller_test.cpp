// The simulated virt-controller stepped in simulated time: phase order, caps, target
// pinning, success and failure, abort on delete, garbage collection.
#include <boost/test/unit_test.hpp>

#include <set>

#include "kubevirt_test_fixture.hpp"
#include "model/timestamp.hpp"
#include "sim/kubevirt_controller.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace schedopt::sim::testing;
using namespace std::chrono_literals;

namespace {

scenario_options cluster(int nodes = 4, int vmis = 8) {
  scenario_options o;
  o.nodes = nodes;
  o.vmis = vmis;
  o.seed = 5;
  return o;
}

kubevirt_controller_options fast(int per_cluster = 5, int per_node = 2, double failure_rate = 0.0) {
  kubevirt_controller_options o;
  o.migrations.parallel_migrations_per_cluster = per_cluster;
  o.migrations.parallel_outbound_migrations_per_node = per_node;
  o.migration_failure_rate = failure_rate;
  o.stages = default_migration_stages(10ms, 50ms);
  o.held_requeue = 100ms; // a held VMIM is looked at every tick (kubevirt_timing_test has 5s)
  o.seed = 3;
  return o;
}

/// Steps the controller in simulated time (100 ms per tick, so each tick moves one phase).
struct stepper {
  kubevirt_controller& controller;
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
  void step(int ticks = 1) {
    for (int i = 0; i < ticks; ++i) {
      now += 100ms;
      controller.tick(now);
    }
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(kubevirt_controller_suite)

BOOST_AUTO_TEST_CASE(walks_every_phase_in_order_and_moves_the_vmi) {
  populated_store w{cluster()};
  kubevirt_controller c{w.store, fast()};
  stepper s{c};
  auto vmi = w.vmis().front();
  auto source = vmi["status"]["nodeName"].get<std::string>();
  auto made = w.migrate(vmi);
  BOOST_REQUIRE(made);
  for (int i = 0; i < 20 && phase_of(w.vmim(*made)) != "Succeeded"; ++i)
    s.step();
  auto m = w.vmim(*made);
  BOOST_REQUIRE_EQUAL(phase_of(m), "Succeeded");
  std::vector<std::string> phases;
  std::string last;
  for (const auto& t : m["status"]["phaseTransitionTimestamps"]) {
    phases.push_back(t["phase"]);
    auto ts = t["phaseTransitionTimestamp"].get<std::string>();
    BOOST_CHECK(parse_rfc3339(ts).has_value());
    BOOST_CHECK(last <= ts);
    last = ts;
  }
  std::vector<std::string> expected{"Pending", "Scheduling", "Scheduled", "PreparingTarget",
                                    "TargetReady", "Running", "Succeeded"};
  BOOST_CHECK_EQUAL_COLLECTIONS(phases.begin(), phases.end(), expected.begin(), expected.end());
  auto state = m["status"]["migrationState"];
  BOOST_CHECK_EQUAL(state["sourceNode"], source);
  BOOST_CHECK(state["targetNode"] != source);
  BOOST_CHECK_EQUAL(state["completed"], true);
  BOOST_CHECK(!state.value("failed", false));
  BOOST_CHECK(state.contains("startTimestamp"));
  BOOST_CHECK(state.contains("endTimestamp"));
  BOOST_CHECK_EQUAL(state["migrationUid"], m["metadata"]["uid"]);
  BOOST_CHECK(m["metadata"].value("finalizers", json::array()).empty());

  auto moved = w.vmi(vmi["metadata"]["namespace"], vmi["metadata"]["name"]);
  BOOST_CHECK_EQUAL(moved["status"]["nodeName"], state["targetNode"]);
  BOOST_CHECK_EQUAL(moved["metadata"]["labels"]["kubevirt.io/nodeName"], state["targetNode"]);
  BOOST_CHECK_EQUAL(moved["status"]["migrationState"]["completed"], true);
  BOOST_CHECK_EQUAL(moved["status"]["migrationState"]["migrationUid"], m["metadata"]["uid"]);
}

BOOST_AUTO_TEST_CASE(caps_are_never_exceeded_and_excess_waits_pending) {
  populated_store w{cluster(4, 16)};
  kubevirt_controller c{w.store, fast(3, 1)};
  stepper s{c};
  for (const auto& vmi : w.vmis())
    BOOST_REQUIRE(w.migrate(vmi));
  int max_active = 0;
  bool saw_pending_wait = false;
  for (int i = 0; i < 400; ++i) {
    s.step();
    int active = 0, pending = 0, done = 0;
    std::map<std::string, int> outbound;
    for (const auto& m : w.vmims()) {
      auto p = phase_of(m);
      if (p == "Succeeded" || p == "Failed") {
        ++done;
        continue;
      }
      if (p == "Pending" || p.empty()) {
        ++pending;
        continue;
      }
      ++active;
      ++outbound[m["status"]["migrationState"]["sourceNode"].get<std::string>()];
    }
    BOOST_REQUIRE_LE(active, 3);
    for (const auto& [node, n] : outbound)
      BOOST_REQUIRE_LE(n, 1);
    max_active = std::max(max_active, active);
    saw_pending_wait = saw_pending_wait || (active > 0 && pending > 0);
    if (done == 16)
      break;
  }
  BOOST_CHECK_GE(max_active, 2);
  BOOST_CHECK(saw_pending_wait);
  for (const auto& m : w.vmims())
    BOOST_CHECK_EQUAL(phase_of(m), "Succeeded");
}

// KubeVirt checks its caps while a migration is Pending, before it makes the target pod:
// a migration queued behind the cap gets no head start on one created when the slot
// frees. Both take the Pending step's delay after they are let through.
BOOST_AUTO_TEST_CASE(a_queued_migration_takes_the_pending_step_after_the_cap_lets_it_through) {
  populated_store w{cluster(4, 16)};
  kubevirt_controller c{w.store, fast(1, 1)};
  stepper s{c};
  auto vmis = w.vmis();
  auto first = w.migrate(vmis[0]);
  auto queued = w.migrate(vmis[1]);
  BOOST_REQUIRE(first && queued);
  for (int i = 0; i < 40 && phase_of(w.vmim(*first)) != "Succeeded"; ++i) {
    s.step();
    BOOST_REQUIRE_EQUAL(phase_of(w.vmim(*queued)), "Pending");
  }
  BOOST_REQUIRE_EQUAL(phase_of(w.vmim(*first)), "Succeeded");
  s.step(); // the slot is free: the queued one is let through, its target pod started
  BOOST_CHECK_EQUAL(phase_of(w.vmim(*queued)), "Pending");
  s.step();
  BOOST_CHECK_EQUAL(phase_of(w.vmim(*queued)), "Scheduling");
}

// KubeVirt 1.9's migration queue (pkg/util/migrations/migrations.go PriorityFromMigration):
// a system-critical migration created last still takes the only free slot first; on 1.6
// the queue is first come, first served.
BOOST_AUTO_TEST_CASE(the_priority_queue_lets_a_system_critical_migration_through_first) {
  for (int minor : {6, 9}) {
    BOOST_TEST_CONTEXT("KubeVirt 1." << minor) {
      populated_store w{cluster(4, 16)};
      auto options = fast(1, 1);
      options.kubevirt = kubevirt_version{minor};
      kubevirt_controller c{w.store, options};
      stepper s{c};
      auto vmis = w.vmis();
      auto plain = w.migrate(vmis[0]);
      json critical = {{"metadata", {{"generateName", "evac-"}, {"namespace", vmis[1]["metadata"]["namespace"]}}},
                       {"spec", {{"vmiName", vmis[1]["metadata"]["name"]}, {"priority", "system-critical"}}}};
      auto urgent = w.store.create(kubevirt::vmim_key, critical);
      BOOST_REQUIRE(plain && urgent);
      s.step(3);
      auto ahead = minor == 9 ? *urgent : *plain;
      auto behind = minor == 9 ? *plain : *urgent;
      BOOST_TEST(phase_of(w.vmim(ahead)) != "Pending");
      BOOST_TEST(phase_of(w.vmim(behind)) == "Pending");
    }
  }
}

// KubeVirt 1.8's handleVMBackup: a backup running on the VMI holds its migration Pending
// with migrationBlockedByBackup in KubeVirt's words until the backup ends; a
// system-critical migration aborts the backup instead. 1.6 knows no backups.
BOOST_AUTO_TEST_CASE(a_running_backup_holds_a_migration_pending_from_1_8) {
  auto backup = [](populated_store& w, const json& vmi, bool completed) {
    BOOST_REQUIRE(w.store.modify(kubevirt::vmi_key, vmi["metadata"]["namespace"], vmi["metadata"]["name"], [&](json& v) {
      v["status"]["changedBlockTracking"]["backupStatus"] = {{"backupName", "nightly"}, {"completed", completed}};
      return true;
    }, true));
  };
  auto condition = [](const json& m) {
    for (const auto& c : m.value("/status/conditions"_json_pointer, json::array()))
      if (c.value("type", "") == "migrationBlockedByBackup")
        return c;
    return json();
  };
  for (int minor : {6, 8}) {
    BOOST_TEST_CONTEXT("KubeVirt 1." << minor) {
      populated_store w{cluster(4, 16)};
      auto options = fast();
      options.kubevirt = kubevirt_version{minor};
      kubevirt_controller c{w.store, options};
      stepper s{c};
      auto vmi = w.vmis().front();
      backup(w, vmi, false);
      auto made = w.migrate(vmi);
      BOOST_REQUIRE(made);
      s.step(4);
      if (minor == 6) {
        BOOST_TEST(phase_of(w.vmim(*made)) != "Pending");
        BOOST_TEST(condition(w.vmim(*made)).is_null());
        continue;
      }
      BOOST_TEST(phase_of(w.vmim(*made)) == "Pending");
      auto held = condition(w.vmim(*made));
      BOOST_TEST(held.value("status", "") == "True");
      BOOST_TEST(held.value("reason", "") == "BackupInProgress");
      BOOST_TEST(held.value("message", "") == "Waiting for backup nightly to complete");
      backup(w, vmi, true);
      s.step(4);
      BOOST_TEST(phase_of(w.vmim(*made)) != "Pending");
      BOOST_TEST(condition(w.vmim(*made)).is_null());
    }
  }
}

BOOST_AUTO_TEST_CASE(a_system_critical_migration_aborts_the_backup) {
  populated_store w{cluster(4, 16)};
  auto options = fast();
  options.kubevirt = kubevirt_version{9};
  kubevirt_controller c{w.store, options};
  stepper s{c};
  auto vmi = w.vmis().front();
  BOOST_REQUIRE(w.store.modify(kubevirt::vmi_key, vmi["metadata"]["namespace"], vmi["metadata"]["name"], [](json& v) {
    v["status"]["changedBlockTracking"]["backupStatus"] = {{"backupName", "nightly"}, {"completed", false}};
    return true;
  }, true));
  json critical = {{"metadata", {{"generateName", "evac-"}, {"namespace", vmi["metadata"]["namespace"]}}},
                   {"spec", {{"vmiName", vmi["metadata"]["name"]}, {"priority", "system-critical"}}}};
  auto made = w.store.create(kubevirt::vmim_key, critical);
  BOOST_REQUIRE(made);
  s.step(2);
  auto after = w.vmi(vmi["metadata"]["namespace"], vmi["metadata"]["name"]);
  BOOST_TEST(after["status"]["changedBlockTracking"]["backupStatus"].value("failed", false));
  bool said = false;
  for (const auto& c : w.vmim(*made).value("/status/conditions"_json_pointer, json::array()))
    said = said || c.value("message", "") == "Aborting backup nightly for system-critical migration";
  BOOST_TEST(said);
  s.step(4);
  BOOST_TEST(phase_of(w.vmim(*made)) != "Pending"); // the backup ended: the migration goes on
}

BOOST_AUTO_TEST_CASE(added_node_selector_pins_the_target) {
  populated_store w{cluster()};
  kubevirt_controller c{w.store, fast()};
  stepper s{c};
  auto vmi = w.vmis().front();
  auto source = vmi["status"]["nodeName"].get<std::string>();
  std::string target;
  for (const auto& n : w.store.list("nodes").items)
    if (n["metadata"]["name"] != source)
      target = n["metadata"]["name"]; // the last one: not what "fewest VMIs" would pick by chance alone
  auto made = w.migrate(vmi, {{"kubernetes.io/hostname", target}});
  BOOST_REQUIRE(made);
  s.step(20);
  auto m = w.vmim(*made);
  BOOST_REQUIRE_EQUAL(phase_of(m), "Succeeded");
  BOOST_CHECK_EQUAL(m["status"]["migrationState"]["targetNode"], target);
  BOOST_CHECK_EQUAL(w.vmi(vmi["metadata"]["namespace"], vmi["metadata"]["name"])["status"]["nodeName"], target);
}

BOOST_AUTO_TEST_CASE(cordoned_or_missing_target_never_schedules) {
  populated_store w{cluster()};
  kubevirt_controller c{w.store, fast()};
  stepper s{c};
  auto vmis = w.vmis();
  auto source = vmis[0]["status"]["nodeName"].get<std::string>();
  std::string cordoned;
  for (const auto& n : w.store.list("nodes").items)
    if (n["metadata"]["name"] != source)
      cordoned = n["metadata"]["name"];
  BOOST_REQUIRE(w.store.modify("nodes", "", cordoned, [](json& n) {
    n["spec"]["unschedulable"] = true;
    return true;
  }));
  auto pinned = w.migrate(vmis[0], {{"kubernetes.io/hostname", cordoned}});
  auto ghost = w.migrate(vmis[1], {{"kubernetes.io/hostname", "node-99"}});
  BOOST_REQUIRE(pinned);
  BOOST_REQUIRE(ghost);
  s.step(50);
  for (const auto& made : {*pinned, *ghost}) {
    auto m = w.vmim(made);
    BOOST_CHECK_EQUAL(phase_of(m), "Scheduling");
    BOOST_CHECK(!m["status"]["migrationState"].contains("targetNode"));
  }
  BOOST_CHECK_EQUAL(w.vmi(vmis[0]["metadata"]["namespace"], vmis[0]["metadata"]["name"])["status"]["nodeName"], source);
  // Uncordoning lets the pinned one proceed.
  BOOST_REQUIRE(w.store.modify("nodes", "", cordoned, [](json& n) {
    n["spec"]["unschedulable"] = false;
    return true;
  }));
  s.step(20);
  BOOST_CHECK_EQUAL(phase_of(w.vmim(*pinned)), "Succeeded");
  BOOST_CHECK_EQUAL(phase_of(w.vmim(*ghost)), "Scheduling");
}

BOOST_AUTO_TEST_CASE(an_unschedulable_target_pod_is_given_up_after_kubevirts_timeouts) {
  populated_store w{cluster()};
  kubevirt_controller c{w.store, fast()};
  stepper s{c};
  auto vmis = w.vmis();
  auto quick = w.migrate(vmis[0], {{"kubernetes.io/hostname", "node-99"}});
  auto standard = w.migrate(vmis[1], {{"kubernetes.io/hostname", "node-99"}});
  BOOST_REQUIRE(quick);
  BOOST_REQUIRE(standard);
  BOOST_REQUIRE(w.store.modify(kubevirt::vmim_key, (*quick)["metadata"]["namespace"], (*quick)["metadata"]["name"],
                               [](json& m) {
                                 m["metadata"]["annotations"]["kubevirt.io/migrationUnschedulablePodTimeoutSeconds"] = "2";
                                 return true;
                               }));
  s.step(10);
  BOOST_REQUIRE_EQUAL(phase_of(w.vmim(*quick)), "Scheduling");
  s.step(25); // past the 2 s of the annotation
  auto failed = w.vmim(*quick);
  BOOST_CHECK_EQUAL(phase_of(failed), "Failed");
  BOOST_CHECK(!failed["status"]["migrationState"].contains("failureReason")); // only the events say why
  BOOST_CHECK_EQUAL(phase_of(w.vmim(*standard)), "Scheduling");
  std::set<std::string> said;
  for (const auto& e : w.store.list("events").items)
    if (e["involvedObject"]["name"] == failed["metadata"]["name"])
      said.insert(e.value("reason", "") + ": " + e.value("message", ""));
  BOOST_CHECK(said.count("FailedMigration: Migration target pod was removed during active migration."));
  bool deleted_event = false;
  for (const auto& line : said)
    deleted_event |= line.rfind("SuccessfulDelete: unschedulable pod ", 0) == 0
                     && line.find("timeout period exceeded") != std::string::npos;
  BOOST_CHECK(deleted_event);
  s.now += std::chrono::seconds{300}; // KubeVirt's default: 5 minutes unschedulable
  s.step(2);
  BOOST_CHECK_EQUAL(phase_of(w.vmim(*standard)), "Failed");
}

BOOST_AUTO_TEST_CASE(a_vmi_update_lag_holds_the_new_node_back_after_succeeded) {
  populated_store w{cluster()};
  auto options = fast();
  options.vmi_update_lag = 350ms;
  kubevirt_controller c{w.store, options};
  stepper s{c};
  auto vmi = w.vmis().front();
  std::string ns = vmi["metadata"]["namespace"], name = vmi["metadata"]["name"];
  auto source = vmi["status"]["nodeName"].get<std::string>();
  auto made = w.migrate(vmi);
  BOOST_REQUIRE(made);
  for (int i = 0; i < 20 && phase_of(w.vmim(*made)) != "Succeeded"; ++i)
    s.step();
  BOOST_REQUIRE_EQUAL(phase_of(w.vmim(*made)), "Succeeded");
  auto target = w.vmim(*made)["status"]["migrationState"]["targetNode"].get<std::string>();
  BOOST_CHECK_EQUAL(w.vmi(ns, name)["status"]["nodeName"], source);
  BOOST_CHECK(!w.vmi(ns, name)["status"]["migrationState"].value("completed", false));
  s.step(3); // 300 ms: still held back
  BOOST_CHECK_EQUAL(w.vmi(ns, name)["status"]["nodeName"], source);
  s.step(1);
  BOOST_CHECK_EQUAL(w.vmi(ns, name)["status"]["nodeName"], target);
  BOOST_CHECK_EQUAL(w.vmi(ns, name)["status"]["migrationState"]["completed"], true);
}

BOOST_AUTO_TEST_CASE(failure_rate_one_fails_with_a_reason_and_leaves_the_vmi) {
  populated_store w{cluster()};
  kubevirt_controller c{w.store, fast(5, 2, 1.0)};
  stepper s{c};
  auto vmi = w.vmis().front();
  auto source = vmi["status"]["nodeName"];
  auto made = w.migrate(vmi);
  BOOST_REQUIRE(made);
  for (int i = 0; i < 20 && phase_of(w.vmim(*made)) != "Failed"; ++i)
    s.step();
  // KubeVirt writes phase=Failed first, the cause only on the next reconcile.
  auto first = w.vmim(*made);
  BOOST_REQUIRE_EQUAL(phase_of(first), "Failed");
  BOOST_CHECK(!first["status"]["migrationState"].contains("failureReason"));
  BOOST_CHECK(!first["status"].contains("conditions")); // KubeVirt writes no Failed condition
  BOOST_CHECK(!first["metadata"].value("finalizers", json::array()).empty());
  s.step();
  auto m = w.vmim(*made);
  auto state = m["status"]["migrationState"];
  BOOST_CHECK_EQUAL(state["failed"], true);
  BOOST_CHECK_EQUAL(state["migrationUid"], m["metadata"]["uid"]);
  auto reason = state.value("failureReason", std::string{});
  BOOST_CHECK(reason.rfind("Live migration failed", 0) == 0);
  BOOST_CHECK(m["metadata"].value("finalizers", json::array()).empty());
  std::set<std::string> said;
  for (const auto& e : w.store.list("events").items)
    said.insert(e.value("reason", "") + ": " + e.value("message", ""));
  BOOST_CHECK(said.count("FailedMigration: source node reported migration failed"));
  BOOST_CHECK(said.count("Migrated: VirtualMachineInstance migration uid " + m["metadata"]["uid"].get<std::string>()
                         + " failed. reason:" + reason));
  auto after = w.vmi(vmi["metadata"]["namespace"], vmi["metadata"]["name"]);
  BOOST_CHECK_EQUAL(after["status"]["nodeName"], source);
  BOOST_CHECK_EQUAL(after["status"]["migrationState"]["failed"], true);
}

BOOST_AUTO_TEST_CASE(deleting_an_in_flight_vmim_aborts_it) {
  populated_store w{cluster()};
  kubevirt_controller c{w.store, fast()};
  stepper s{c};
  auto vmi = w.vmis().front();
  auto source = vmi["status"]["nodeName"];
  auto made = w.migrate(vmi);
  BOOST_REQUIRE(made);
  s.step(4); // Pending, admitted (its target pod being made), Scheduling, Scheduled
  BOOST_REQUIRE_EQUAL(phase_of(w.vmim(*made)), "Scheduled");
  auto since = w.store.resource_version();
  auto deleted = w.store.remove(kubevirt::vmim_key, (*made)["metadata"]["namespace"], (*made)["metadata"]["name"]);
  BOOST_REQUIRE(deleted);
  BOOST_CHECK((*deleted)["metadata"].contains("deletionTimestamp")); // held by the finalizer
  s.step();
  BOOST_CHECK(!w.store.get(kubevirt::vmim_key, (*made)["metadata"]["namespace"], (*made)["metadata"]["name"]));
  auto events = w.store.events_since(kubevirt::vmim_key, "", since);
  BOOST_REQUIRE(events);
  bool saw_abort = false, saw_deleted = false;
  for (const auto& e : *events) {
    if (e.type == "DELETED")
      saw_deleted = true;
    // Before hand-off: Failed with condition migrationAbortRequested, nothing aborted.
    for (const auto& c : e.object.value("/status/conditions"_json_pointer, json::array()))
      if (phase_of(e.object) == "Failed" && c.value("type", "") == "migrationAbortRequested")
        saw_abort = true;
  }
  BOOST_CHECK(saw_abort);
  BOOST_CHECK(saw_deleted);
  s.step(10);
  BOOST_CHECK_EQUAL(w.vmi(vmi["metadata"]["namespace"], vmi["metadata"]["name"])["status"]["nodeName"], source);
  // The VMI may be migrated again.
  BOOST_CHECK(w.migrate(vmi));
}

BOOST_AUTO_TEST_CASE(keeps_five_finished_vmims_per_vmi) {
  populated_store w{cluster()};
  kubevirt_controller c{w.store, fast()};
  stepper s{c};
  auto vmi = w.vmis().front();
  std::vector<std::string> names;
  for (int i = 0; i < 7; ++i) {
    auto made = w.migrate(vmi);
    BOOST_REQUIRE(made);
    names.push_back((*made)["metadata"]["name"]);
    for (int k = 0; k < 20 && phase_of(w.vmim(*made)) != "Succeeded"; ++k)
      s.step();
    BOOST_REQUIRE_EQUAL(phase_of(w.vmim(*made)), "Succeeded");
  }
  s.step(2);
  std::set<std::string> left;
  for (const auto& m : w.vmims())
    if (m["spec"]["vmiName"] == vmi["metadata"]["name"])
      left.insert(m["metadata"]["name"]);
  BOOST_CHECK_EQUAL(left.size(), 5u);
  BOOST_CHECK(!left.count(names[0]));
  BOOST_CHECK(!left.count(names[1]));
  BOOST_CHECK(left.count(names[6]));
}

BOOST_AUTO_TEST_SUITE_END()
