// podHyperconvergence under crashes (docs/design.md §9 resume): the only controller is
// SIGKILLed at seeded moments while evictions are in flight and restarted each time. The
// simulator's audit judges it: no pod was evicted twice for the request, nothing but the
// pods eligible at the start was evicted (a ReplicaSet's replacement, with a new name,
// never), and every eligible pod is accounted for exactly once in the status block.
// With both kinds in the request, the kills land after the VM kind finished: the resumed
// request runs that kind again, which must find its work done (no VM migrated twice, its
// counters as the ground truth says).
#include <boost/test/unit_test.hpp>

#include "chaos/chaos_harness.hpp"

using namespace schedopt::chaos;
using schedopt::e2e::eventually;
using schedopt::e2e::ground_truth;
using schedopt::e2e::migratable_candidates;
using schedopt::e2e::pod_ground_truth;
using schedopt::e2e::scenario;

BOOST_AUTO_TEST_SUITE(chaos)

namespace {

/// Evictions the simulator accepted (201), per "<ns>/<pod>".
std::map<std::string, int> accepted_evictions(const sim_process& sim) {
  std::map<std::string, int> out;
  for (auto& e : schedopt::e2e::audit(sim).value("evictions", json::array()))
    if (e.value("code", 0) == 201)
      ++out[e.value("namespace", "") + "/" + e.value("pod", "")];
  return out;
}

} // namespace

BOOST_AUTO_TEST_CASE(pod_crash_resume) {
  long long started = now_ms();
  uint64_t seed = chaos_seed(202);
  // Slow terminations and starts keep evictions in flight long enough for the kills to
  // land among them; one eviction at a time per workload is the budgets' doing.
  scenario s("portworx", {"--nodes", "8", "--vmis", "6", "--pods", std::to_string(sized(120, 400)),
                          "--pods-misplaced", "0.4", "--pods-uncontrolled", "0.05",
                          "--pods-default-scheduler", "0.1", "--seed", std::to_string(seed),
                          "--pod-start-delay", "1s", "--pod-termination-delay", "1s",
                          "--pod-recreate-delay", "300ms"});
  // The pods eligible now: misplaced, in a StatefulSet or ReplicaSet, placed by stork,
  // with a schedulable best node.
  std::set<std::string> eligible;
  for (auto& t : pod_ground_truth(s.sim(), "portworx"))
    if (t.phase == "Running" && !t.virt_launcher && t.error.empty() && t.has_driver_volume && t.misplaced
        && (t.owner_kind == "StatefulSet" || t.owner_kind == "ReplicaSet") && t.scheduler_name == "stork"
        && !t.schedulable_best.empty())
      eligible.insert(t.key());
  BOOST_REQUIRE_MESSAGE(eligible.size() >= 15, "only " << eligible.size() << " eligible pods");

  auto request = create_request(s.sim(), "pod-crash",
                                {{"podHyperconvergence", {{"enabled", true}, {"maxParallelEvictions", 4}}}});
  controller_fleet fleet(s, {"--log-level", "info"});
  fleet.start();

  auto accepted = [&] { return accepted_evictions(s.sim()); };
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pause_ms(200, 2500);
  int kills = sized(5, 12), done_kills = 0;
  for (int i = 0; i < kills; ++i) {
    // The first kill waits for an eviction: the point is to crash among them.
    if (i == 0)
      eventually([&] { return !accepted().empty(); }, std::chrono::seconds(60), std::chrono::milliseconds(50));
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));
    if (stage_of(get_request(s.sim(), "pod-crash")) == "Final")
      break;
    fleet.running().back()->kill_hard();
    ++done_kills;
    fleet.start();
  }
  violations v;
  std::vector<tracked_request> requests{{"pod-crash", request["metadata"].value("uid", ""), false, now_ms(), -1}};
  auto stuck = wait_all_final(s.sim(), requests, std::chrono::seconds(sized(150, 600)));
  v.expect(stuck.empty(), "the request did not reach Final: " + stuck);
  int code = fleet.running().empty() ? -1 : fleet.running().back()->terminate();
  v.expect(code == 0, "the last controller exited " + std::to_string(code) + " on SIGTERM");

  auto evicted = accepted();
  for (auto& [pod, n] : evicted) {
    v.expect(n == 1, pod + " evicted " + std::to_string(n) + " times by one request");
    v.expect(eligible.count(pod) == 1, pod + " evicted but was not an eligible pod at the start");
  }
  auto done = get_request(s.sim(), "pod-crash");
  auto block = done.value("/status/podHyperconvergence"_json_pointer, json::object());
  std::map<std::string, int> named;
  for (auto& d : block.value("details", json::array()))
    ++named[d.value("namespace", "") + "/" + d.value("name", "")];
  for (auto& [pod, n] : named)
    v.expect(n == 1, pod + " named " + std::to_string(n) + " times in the status");
  long long outstanding = outstanding_in_reason(done.value("/status/reason"_json_pointer, std::string()));
  long long engine = 0;
  for (auto& pod : eligible)
    engine += named.count(pod);
  // Every eligible pod has its outcome (or was left outstanding by the per-run cap).
  v.expect(engine + outstanding >= (long long)eligible.size(),
           std::to_string(eligible.size()) + " eligible, " + std::to_string(engine) + " with an outcome, "
             + std::to_string(outstanding) + " outstanding");
  long long counted = block.value("successful", 0LL) + block.value("failed", 0LL) + block.value("skipped", 0LL);
  v.expect(counted == (long long)named.size(),
           "counters " + std::to_string(counted) + " != details " + std::to_string(named.size()));
  std::cout << "chaos pod_crash_resume seed " << seed << ": " << done_kills << " SIGKILL, "
            << eligible.size() << " eligible, " << evicted.size() << " evicted once each, "
            << block.value("successful", 0LL) << " successful, " << block.value("failed", 0LL) << " failed, "
            << block.value("skipped", 0LL) << " skipped, " << v.count() << " violations, "
            << (now_ms() - started) / 1000 << " s" << std::endl;
}

BOOST_AUTO_TEST_CASE(both_kinds_crash_after_the_vm_kind_finished) {
  long long started = now_ms();
  uint64_t seed = chaos_seed(303);
  scenario s("portworx", {"--nodes", "8", "--vmis", "40", "--misplaced", "0.3", "--migration-duration", "300ms",
                          "--parallel-migrations-per-cluster", "10", "--pods", std::to_string(sized(80, 300)),
                          "--pods-misplaced", "0.4", "--seed", std::to_string(seed), "--pod-start-delay", "1s",
                          "--pod-termination-delay", "1s", "--pod-recreate-delay", "300ms"});
  auto vms = migratable_candidates(ground_truth(s.sim(), "portworx"));
  BOOST_REQUIRE_MESSAGE(vms.size() >= 3, "only " << vms.size() << " VMs to migrate");
  auto request = create_request(s.sim(), "both-crash",
                                {{"vmHyperconvergence", {{"enabled", true}, {"maxParallelMigrations", 10}}},
                                 {"podHyperconvergence", {{"enabled", true}, {"maxParallelEvictions", 4}}}});
  auto uid = request["metadata"].value("uid", "");
  controller_fleet fleet(s, {"--log-level", "info"});
  fleet.start();

  // The VM kind runs first: an accepted eviction says it has finished.
  bool evicting = eventually([&] { return !accepted_evictions(s.sim()).empty(); }, std::chrono::seconds(120),
                             std::chrono::milliseconds(50));
  BOOST_REQUIRE_MESSAGE(evicting, "no eviction within 120 s");
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pause_ms(200, 1500);
  int kills = sized(3, 8), done_kills = 0;
  for (int i = 0; i < kills; ++i) {
    if (i > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));
    if (stage_of(get_request(s.sim(), "both-crash")) == "Final")
      break;
    fleet.running().back()->kill_hard();
    ++done_kills;
    fleet.start();
  }
  violations v;
  std::vector<tracked_request> requests{{"both-crash", uid, false, now_ms(), -1}};
  auto stuck = wait_all_final(s.sim(), requests, std::chrono::seconds(sized(150, 600)));
  v.expect(stuck.empty(), "the request did not reach Final: " + stuck);
  int code = fleet.running().empty() ? -1 : fleet.running().back()->terminate();
  v.expect(code == 0, "the last controller exited " + std::to_string(code) + " on SIGTERM");

  // Judged by the audit: each VM of the ground truth migrated once, nothing else.
  std::map<std::string, int> migrations;
  for (auto& m : read_audit(s.sim()).of_request(uid))
    ++migrations[m.vmi_key()];
  for (auto& [vm, n] : migrations)
    v.expect(n == 1, vm + " migrated " + std::to_string(n) + " times by one request");
  v.expect(migrations.size() == vms.size(),
           std::to_string(migrations.size()) + " VMs migrated, the ground truth has " + std::to_string(vms.size()));
  for (auto& t : vms)
    v.expect(migrations.count(t.ns + "/" + t.name) == 1, t.ns + "/" + t.name + " was not migrated");
  auto evicted = accepted_evictions(s.sim());
  for (auto& [pod, n] : evicted)
    v.expect(n == 1, pod + " evicted " + std::to_string(n) + " times by one request");
  auto done = get_request(s.sim(), "both-crash");
  auto vm_block = done.value("/status/vmHyperconvergence"_json_pointer, json::object());
  v.expect(vm_block.value("successful", 0LL) == (long long)vms.size(),
           "vmHyperconvergence successful " + std::to_string(vm_block.value("successful", 0LL)) + ", expected "
             + std::to_string(vms.size()));
  v.expect(vm_block.value("failed", 0LL) == 0, "vmHyperconvergence failed is not 0");
  std::cout << "chaos both_kinds_crash_after_the_vm_kind_finished seed " << seed << ": " << done_kills
            << " SIGKILL, " << migrations.size() << " VMs migrated once each, " << evicted.size()
            << " pods evicted, " << v.count() << " violations, " << (now_ms() - started) / 1000 << " s"
            << std::endl;
}

BOOST_AUTO_TEST_SUITE_END()
