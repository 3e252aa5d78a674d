// docs/design.md §1–§3: a misplaced fleet converges, with each storage driver; counters match
// the ground truth computed from the simulator's objects, and no candidate is left.
// Before KubeVirt 1.6 the VMIM schema prunes the pin: the run says so once and flags
// every landing off the VM's replica nodes, judged by where the simulator put each VM.
#include <boost/test/unit_test.hpp>

#include "e2e/e2e_fixture.hpp"

using namespace schedopt::e2e;

namespace {

void converge(const std::string& driver, const std::string& version = "1.6") {
  scenario s(driver, {"--nodes", "6", "--vmis", "30", "--misplaced", "0.4", "--seed", "11",
                      "--migration-duration", "300ms", "--parallel-migrations-per-cluster", "10",
                      "--kubevirt-version", version});
  auto before = s.truth();
  auto expected = migratable_candidates(before);
  BOOST_REQUIRE_MESSAGE(expected.size() >= 5, "scenario has too few candidates to test");
  // Candidates the filters stop (none expected here, but computed rather than assumed).
  std::size_t skipped = 0;
  for (auto& t : before)
    if (!t.error.empty() || (t.misplaced && (!t.live_migratable || t.targets.empty())))
      ++skipped;

  s.start_controller();
  s.create_request("converge", scenario::enabled_spec());
  auto r = s.wait_final("converge");

  BOOST_TEST(status_of_request(r) == (skipped ? "PartialSuccess" : "Successful"));
  if (!skipped)
    BOOST_TEST(reason_of_request(r) == "");
  BOOST_TEST(counter(r, "successful") == (long long)expected.size());
  BOOST_TEST(counter(r, "failed") == 0);
  BOOST_TEST(counter(r, "skipped") == (long long)skipped);
  auto details = details_by_vm(r);
  for (auto& t : expected) {
    BOOST_TEST_CONTEXT("vm " << t.key()) {
      BOOST_REQUIRE(details.count(t.key()) == 1);
      BOOST_TEST(details[t.key()].value("status", "") == "Successful");
    }
  }
  BOOST_TEST(!r.value("/status/startTimestamp"_json_pointer, std::string()).empty());
  BOOST_TEST(!r.value("/status/finishTimestamp"_json_pointer, std::string()).empty());
  BOOST_TEST(r.value("/status/observedGeneration"_json_pointer, 0LL) == r["metadata"].value("generation", 0LL));

  // Recomputed from the objects: every migrated VM sits on a best node now.
  auto after = s.truth();
  for (auto& t : after)
    BOOST_TEST_CONTEXT("vm " << t.key() << " on " << t.node) {
      BOOST_TEST(!(t.misplaced && t.live_migratable && !t.targets.empty() && t.error.empty()));
    }
  // Each migrated VM was migrated once, by a VMIM carrying the request's uid.
  auto uid = r["metadata"]["uid"].get<std::string>();
  std::map<std::string, int> per_vm;
  for (auto& m : s.schedopt_vmims()) {
    BOOST_TEST(m.value("/metadata/labels"_json_pointer, json::object()).value(request_uid_label, "") == uid);
    // spec.priority is virt-controller's (KubeVirt 1.7 on): schedopt never sets it.
    BOOST_TEST(!m["spec"].contains("priority"), m.dump());
    ++per_vm[m["metadata"]["namespace"].get<std::string>() + "/" + m["spec"]["vmiName"].get<std::string>()];
  }
  BOOST_TEST(per_vm.size() == expected.size());
  for (auto& [vm, n] : per_vm)
    BOOST_TEST_CONTEXT("vm " << vm) { BOOST_TEST(n == 1); }

  // /metrics tells the same story.
  auto& ctl = s.controller();
  double n = (double)expected.size();
  BOOST_TEST(metric(ctl, "schedopt_migrations_total{outcome=\"Successful\"}") == n);
  BOOST_TEST(metric(ctl, "schedopt_candidates_total{verdict=\"eligible\"}") == n);
  BOOST_TEST(metric(ctl, "schedopt_migrations_in_flight") == 0);
  BOOST_TEST(metric(ctl, "schedopt_requests_pending") == 0);
  BOOST_TEST(metric(ctl, std::string("schedopt_requests_total{status=\"") + status_of_request(r) + "\"}") == 1);
  auto patches = metric(ctl, "schedopt_status_patches_total{result=\"written\"}");
  auto updates = metric(ctl, "schedopt_status_updates_total");
  auto coalesced = metric(ctl, "schedopt_status_updates_coalesced_total");
  BOOST_TEST_MESSAGE("status: " << updates << " updates, " << coalesced << " coalesced, " << patches << " patches");
  BOOST_TEST(patches >= 2);                 // at least a stage change and the final status
  BOOST_TEST(updates >= n + 2);             // one per VM result, plus stages and the outcome
  BOOST_TEST(coalesced >= 0);
  BOOST_TEST(patches <= updates - coalesced + 1); // + heartbeats, at most one in a short run
  // Each followed VMIM's creation-to-final time, by outcome; build and process metrics.
  BOOST_TEST(metric(ctl, "schedopt_migration_duration_seconds_count{outcome=\"successful\"}") == n);
  BOOST_TEST(metric(ctl, "schedopt_migration_duration_seconds_bucket{outcome=\"successful\",le=\"+Inf\"}") == n);
  BOOST_TEST(metric(ctl, "schedopt_migration_duration_seconds_sum{outcome=\"successful\"}") >= 0);
  BOOST_TEST(metric(ctl, "process_resident_memory_bytes") > 1e6);
  BOOST_TEST(metric(ctl, "process_cpu_seconds_total") > 0);
  BOOST_TEST(metric(ctl, "process_open_fds") > 3);
  BOOST_TEST(metric(ctl, "process_start_time_seconds") > 1.7e9);
  auto exposed = plain_get("http://127.0.0.1:" + std::to_string(ctl.metrics_port()) + "/metrics").body;
  BOOST_TEST(exposed.find("# TYPE schedopt_build_info gauge\n") != std::string::npos);
  BOOST_TEST(exposed.find("schedopt_build_info{version=\"") != std::string::npos, exposed);
  BOOST_TEST(exposed.find("\",revision=\"") != std::string::npos);
  BOOST_TEST(s.controller().terminate() == 0);
}

/// Events the controller recorded with `reason`, as the simulator stores them.
std::vector<json> events_with_reason(const scenario& s, const std::string& reason) {
  std::vector<json> out;
  for (auto& e : items(s.sim(), "/api/v1/events"))
    if (e.value("reason", "") == reason)
      out.push_back(e);
  return out;
}

void unpinned_run(const std::string& version) {
  scenario s("portworx", {"--nodes", "6", "--vmis", "30", "--misplaced", "0.4", "--seed", "11",
                          "--migration-duration", "300ms", "--parallel-migrations-per-cluster", "10",
                          "--kubevirt-version", version});
  auto expected = migratable_candidates(s.truth());
  BOOST_REQUIRE_MESSAGE(expected.size() >= 5, "scenario has too few candidates to test");
  s.start_controller();
  s.create_request("unpinned", scenario::enabled_spec());
  auto r = s.wait_final("unpinned");
  // KubeVirt moved every candidate; where it put them is its scheduler's choice.
  BOOST_TEST(counter(r, "successful") == (long long)expected.size());
  BOOST_TEST(counter(r, "failed") == 0);
  std::set<std::string> migrated;
  for (auto& m : s.schedopt_vmims()) {
    BOOST_TEST(!m["spec"].contains("addedNodeSelector")); // pruned by the VMIM schema
    migrated.insert(m["metadata"]["namespace"].get<std::string>() + "/"
                    + m["spec"]["vmiName"].get<std::string>());
  }
  BOOST_TEST(migrated.size() == expected.size());
  // From the simulator's objects: the migrated VMs now on a node with none of their replicas.
  std::set<std::string> off_replica;
  for (auto& t : s.truth())
    if (migrated.count(t.key()) && t.node_score == 0)
      off_replica.insert(t.key());
  BOOST_TEST_MESSAGE("KubeVirt " << version << ": " << off_replica.size() << " of "
                                 << migrated.size() << " unpinned migrations landed off-replica");
  BOOST_REQUIRE_MESSAGE(!off_replica.empty(), "the scenario must put some VM off its replicas");
  std::vector<json> flagged, said;
  eventually([&] {
    flagged = events_with_reason(s, "MigratedOffReplica");
    said = events_with_reason(s, "TargetPinningUnsupported");
    return flagged.size() >= off_replica.size() && !said.empty();
  }, std::chrono::seconds(10), std::chrono::milliseconds(200));
  std::set<std::string> flagged_vms;
  for (auto& e : flagged) {
    BOOST_TEST(e.value("type", "") == "Warning");
    flagged_vms.insert(e["involvedObject"].value("namespace", "") + "/"
                       + e["involvedObject"].value("name", ""));
  }
  BOOST_TEST(flagged_vms == off_replica);
  BOOST_TEST(flagged.size() == off_replica.size());
  BOOST_REQUIRE(said.size() == 1u); // said once for the run
  BOOST_TEST(said.front()["involvedObject"].value("kind", "") == "SchedulingOptimization");
  auto& ctl = s.controller();
  BOOST_TEST(metric(ctl, "schedopt_migrations_off_replica_total") == (double)off_replica.size());
  BOOST_TEST(metric(ctl, "schedopt_unpinned_runs_total") == 1);
  BOOST_TEST(s.controller().terminate() == 0);
}

} // namespace

BOOST_AUTO_TEST_SUITE(convergence)

BOOST_AUTO_TEST_CASE(misplaced_fleet_converges_with_csi_topology) { converge("csi-topology"); }

BOOST_AUTO_TEST_CASE(misplaced_fleet_converges_with_portworx) { converge("portworx"); }

BOOST_AUTO_TEST_CASE(misplaced_fleet_converges_with_longhorn) { converge("longhorn"); }

// KubeVirt 1.8 (the priority queue's gate off by default) and 1.9 (always on): the VMIM
// schema has spec.priority, which only virt-controller may set; schedopt's migrations
// carry none and queue at priority 0, and the fleet converges as on 1.6.
void converge_without_priority(const std::string& version) {
  converge("portworx", version);
}

BOOST_AUTO_TEST_CASE(kubevirt_1_8_converges) { converge_without_priority("1.8"); }

BOOST_AUTO_TEST_CASE(kubevirt_1_9_converges) { converge_without_priority("1.9"); }

BOOST_AUTO_TEST_CASE(kubevirt_1_5_runs_unpinned_and_flags_off_replica_landings) { unpinned_run("1.5"); }

BOOST_AUTO_TEST_CASE(kubevirt_1_3_runs_unpinned_and_flags_off_replica_landings) { unpinned_run("1.3"); }

BOOST_AUTO_TEST_SUITE_END()
