// Chaos scenarios (docs/design.md §1, §3, §4): controllers SIGKILLed and SIGTERMed at seeded random
// moments, API faults, leader failover, a request deleted and re-created mid-run while
// the old run's status patch is held by the simulator. Each ends with check_end_state on
// the simulator's audit and prints one summary line.
// Short counts by default (CI); SCHEDOPT_CHAOS_FULL=1 for the full counts.
#include <boost/test/unit_test.hpp>

#include "chaos/chaos_harness.hpp"

using namespace schedopt::chaos;
using schedopt::e2e::eventually;
using schedopt::e2e::scenario;

namespace {

const std::string driver = "csi-topology";
const std::string cool_off = "1h"; // larger than any run: a second schedopt VMIM of a VM is a violation
constexpr auto cool_off_ms = std::chrono::milliseconds(3600 * 1000);

/// Simulator flags of a fleet with about `vmis / 2` candidates, some failing migrations
/// and some VMIs that are not live-migratable; migrations are slower in the full run, so
/// that all its kills land before the end.
std::vector<std::string> fleet_flags(int vmis, uint64_t seed, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--nodes", "10", "--vmis", std::to_string(vmis), "--misplaced", "0.5",
                                   "--not-migratable", "0.03", "--migration-failure-rate", "0.05",
                                   "--migration-duration", sized<std::string>("400ms", "1s"),
                                   "--parallel-migrations-per-cluster",
                                   "12", "--parallel-outbound-migrations-per-node", "3", "--seed",
                                   std::to_string(seed), "--kubevirt-version", chaos_kubevirt_version()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

/// Flags of every controller here (after scenario::controller_args).
std::vector<std::string> controller_flags(int per_run_cap, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--log-level", "info", "--max-non-hyperconverged-per-run",
                                   std::to_string(per_run_cap)};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

const std::vector<std::string> short_lease = {"--leader-elect", "--lease-duration", "3s",
                                              "--renew-deadline", "2s", "--retry-period", "500ms"};
/// Bound on the wait for Final once the chaos is over (well above what a healthy short
/// run needs; wait_all_final gives up sooner when the controllers stall).
std::chrono::seconds final_timeout() { return std::chrono::seconds(sized(90, 600)); }

// The bound of docs/design.md §4.3 is leaseDuration + retryPeriod after the leader's last renewal.
// The kill lands up to one retryPeriod after that renewal, and the follower observes it up to one
// retryPeriod later still (client-go measures expiry from its own observation), so from
// the kill the bound is leaseDuration + 2 retryPeriods.
constexpr long long lease_bound_ms = 3000 + 2 * 500;

/// Creates `names` in order, a little apart so creationTimestamps order them too.
std::vector<tracked_request> create_requests(const sim_process& sim, const std::vector<std::string>& names,
                                             int max_parallel) {
  std::vector<tracked_request> out;
  for (auto& name : names) {
    auto obj = create_request(sim, name, request_spec(cool_off, max_parallel));
    out.push_back({name, obj["metadata"].value("uid", ""), false, now_ms(), -1});
  }
  return out;
}

/// "Evaluating 1, Migrating 3": at which stage of the running request each kill landed.
std::string stage_tally(const std::map<std::string, int>& tally) {
  std::string out;
  for (auto& [stage, n] : tally)
    out += (out.empty() ? "" : "; ") + (stage.empty() ? std::string("unseen") : stage) + " " + std::to_string(n);
  return out.empty() ? "none" : out;
}

/// The stage of the oldest request past Pending and not Final.
std::string running_stage(const sim_process& sim, const std::vector<tracked_request>& requests) {
  for (auto& r : requests)
    if (!r.deleted_by_test) {
      auto s = stage_of(get_request(sim, r.name));
      if (s != "Final" && s != "Pending")
        return s;
    }
  return "between requests";
}

bool all_final(const sim_process& sim, const std::vector<tracked_request>& requests) {
  for (auto& r : requests)
    if (!r.deleted_by_test && stage_of(get_request(sim, r.name)) != "Final")
      return false;
  return true;
}

/// crash_resume and api_faults: SIGKILL the only controller at seeded random moments,
/// restart it each time, then let the run finish and check the end state.
void kill_and_resume(const std::string& name, uint64_t seed, int vmis, std::size_t min_candidates,
                     int per_run_cap, int kills, std::vector<std::string> fault_flags) {
  long long started = now_ms();
  scenario s(driver, fleet_flags(vmis, seed, fault_flags));
  auto truth = truth_of(s.sim(), driver);
  auto candidates = candidate_keys(truth);
  BOOST_REQUIRE_MESSAGE(candidates.size() >= min_candidates,
                        "only " << candidates.size() << " candidates, want " << min_candidates);
  auto requests = create_requests(s.sim(), {name + "-a", name + "-b", name + "-c"}, sized(8, 6));
  controller_fleet fleet(s, controller_flags(per_run_cap));
  fleet.start();

  // Three kinds of moment, in turn: a seeded pause into the run (mostly Migrating); the
  // instant the next Pending request is promoted (its evaluation); a short seeded pause
  // after the restart (informer sync, adoption, the resumed evaluation).
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pause_ms(300, 3000);
  std::uniform_int_distribution<int> early_ms(50, 500);
  std::map<std::string, int> tally;
  std::set<std::string> promoted_seen = {requests.front().name};
  violations v;
  counter_watch counters;
  int done_kills = 0;
  for (int i = 0; i < kills; ++i) {
    std::string stage;
    if (i % 3 == 1 && promoted_seen.size() < requests.size()) {
      // Poll fast until a request we have not seen promoted leaves Pending.
      eventually(
        [&] {
          for (auto& r : requests) {
            if (promoted_seen.count(r.name))
              continue;
            auto st = stage_of(get_request(s.sim(), r.name));
            if (st != "Pending" && !st.empty()) {
              promoted_seen.insert(r.name);
              stage = "at promotion/" + st;
              return true;
            }
            return false; // only the oldest unseen one can be next
          }
          return false;
        },
        20s, 5ms);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(i % 3 == 2 ? early_ms(rng) : pause_ms(rng)));
    }
    if (all_final(s.sim(), requests))
      break;
    if (stage.empty())
      stage = (i % 3 == 2 ? "early/" : "") + running_stage(s.sim(), requests);
    ++tally[stage];
    counters.sample(s.sim(), requests, v);
    fleet.running().back()->kill_hard();
    ++done_kills;
    fleet.start();
    std::this_thread::sleep_for(100ms);
    counters.sample(s.sim(), requests, v);
  }
  BOOST_TEST_MESSAGE(name << ": " << done_kills << " kills, all done; waiting for Final");
  BOOST_CHECK_MESSAGE(done_kills == kills, "the run ended after " << done_kills << " of " << kills
                                                                    << " kills: make the fleet larger");
  auto stuck = wait_all_final(s.sim(), requests, final_timeout());
  counters.sample(s.sim(), requests, v);
  v.expect(stuck.empty(), "not every request reached Final within " + std::to_string(final_timeout().count())
                            + " s: " + stuck);
  int code = fleet.running().empty() ? -1 : fleet.running().back()->terminate();
  v.expect(code == 0, "the last controller exited " + std::to_string(code) + " on SIGTERM");
  auto audit = read_audit(s.sim());
  auto end = check_end_state(s.sim(), audit, truth, requests, cool_off_ms, v);
  std::size_t faulted = 0;
  for (auto& w : audit.writes)
    faulted += (w.code == 429 || w.code >= 500) ? 1 : 0;
  std::string injected = std::to_string(done_kills) + " SIGKILL (" + stage_tally(tally) + ")";
  if (!fault_flags.empty())
    injected += ", faults on, " + std::to_string(faulted) + " writes answered 429/5xx";
  injected += ", " + std::to_string(candidates.size()) + " candidates";
  print_summary(name, seed, injected, end, v.count(), started);
}


/// First successful write (`lease_only`: Lease writes; else non-Lease writes) by a replica
/// other than `gone` after `after_ms`; -1 if none.
long long first_write_after(const audit_record& audit, const std::string& gone, long long after_ms,
                            bool lease_only) {
  long long first = -1;
  for (auto& w : audit.writes)
    if (w.by_schedopt() && w.ok() && w.replica() != gone && w.time_ms > after_ms && w.lease() == lease_only
        && (first < 0 || w.time_ms < first))
      first = w.time_ms;
  return first;
}

struct handover {
  std::string gone;  // identity of the replica stopped
  long long at_ms;   // when the signal was sent
};

/// failover (SIGKILL) and shutdown (SIGTERM): two replicas with leader election; the
/// leader is stopped mid-run `times` times and a fresh replica joins after each.
void stop_leader_repeatedly(const std::string& name, uint64_t seed, int vmis, int per_run_cap, int times,
                            int sig) {
  long long started = now_ms();
  scenario s(driver, fleet_flags(vmis, seed));
  auto truth = truth_of(s.sim(), driver);
  auto candidates = candidate_keys(truth);
  BOOST_REQUIRE(candidates.size() >= 20);
  controller_fleet fleet(s, controller_flags(per_run_cap, short_lease));
  fleet.start();
  fleet.start();
  auto requests = create_requests(s.sim(), {name + "-a", name + "-b", name + "-c"}, 6);
  violations v;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pause_ms(1000, 3500);
  std::vector<handover> handovers;
  counter_watch counters;
  std::string leader = wait_leader(s.sim(), fleet, "", 30s);
  BOOST_REQUIRE_MESSAGE(!leader.empty(), "no replica took the Lease");
  for (int i = 0; i < times; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));
    if (all_final(s.sim(), requests))
      break;
    auto* proc = fleet.by_identity(leader);
    if (proc == nullptr)
      break;
    long long at = now_ms();
    if (sig == SIGKILL) {
      proc->kill_hard();
    } else {
      proc->signal(SIGTERM);
      int code = proc->wait_exit(5s);
      v.expect(code == 0, "SIGTERM #" + std::to_string(i + 1) + " to " + leader + ": exit code "
                            + std::to_string(code) + " within 5 s (-1: still running)");
      if (code == -1)
        proc->kill_hard();
      else {
        auto holder = lease_holder(s.sim());
        v.expect(holder != leader, "after a clean exit the Lease still names " + leader);
      }
    }
    handovers.push_back({leader, at});
    counters.sample(s.sim(), requests, v);
    fleet.start();
    leader = wait_leader(s.sim(), fleet, leader, 30s);
    v.expect(!leader.empty(), "no new leader within 30 s of stop #" + std::to_string(i + 1));
    if (leader.empty())
      break;
  }
  auto stuck = wait_all_final(s.sim(), requests, final_timeout());
  counters.sample(s.sim(), requests, v);
  v.expect(stuck.empty(), "not every request reached Final within " + std::to_string(final_timeout().count())
                            + " s: " + stuck);
  for (auto* p : fleet.running()) {
    int code = p->terminate();
    v.expect(code == 0, "a replica exited " + std::to_string(code) + " on the final SIGTERM");
  }
  auto audit = read_audit(s.sim());
  std::ostringstream takeovers;
  for (std::size_t i = 0; i < handovers.size(); ++i) {
    auto& h = handovers[i];
    long long lease = first_write_after(audit, h.gone, h.at_ms, true);
    long long work = first_write_after(audit, h.gone, h.at_ms, false);
    v.expect(lease >= 0 && lease - h.at_ms <= lease_bound_ms,
             "stop #" + std::to_string(i + 1) + " of " + h.gone + " at " + clock_text(h.at_ms)
               + ": first Lease write by another replica at " + clock_text(lease) + ", bound "
               + std::to_string(lease_bound_ms) + " ms");
    v.expect(work >= 0, "stop #" + std::to_string(i + 1) + ": no replica wrote anything but the Lease afterwards");
    if (sig == SIGTERM) // docs/design.md §4.2: no VMIM after SIGTERM (in-flight calls: 500 ms)
      for (auto& m : audit.vmims)
        v.expect(m.created_by.find("(" + h.gone + ")") == std::string::npos || m.created_ms <= h.at_ms + 500,
                 "VMIM " + m.key() + " created by " + h.gone + " at " + clock_text(m.created_ms)
                   + ", after its SIGTERM at " + clock_text(h.at_ms));
    takeovers << (i ? ", " : "") << (lease >= 0 ? std::to_string(lease - h.at_ms) : "-") << "/"
              << (work >= 0 ? std::to_string(work - h.at_ms) : "-");
  }
  auto end = check_end_state(s.sim(), audit, truth, requests, cool_off_ms, v);
  std::string injected = std::to_string(handovers.size()) + (sig == SIGKILL ? " leader SIGKILL" : " leader SIGTERM")
                         + ", takeover ms lease/work " + takeovers.str() + ", "
                         + std::to_string(candidates.size()) + " candidates";
  print_summary(name, seed, injected, end, v.count(), started);
}

} // namespace

BOOST_AUTO_TEST_SUITE(chaos)

BOOST_AUTO_TEST_CASE(crash_resume) {
  kill_and_resume("crash-resume", chaos_seed(101), sized(130, 560), sized<std::size_t>(60, 200),
                  sized(25, 100), sized(4, 20), {});
}

BOOST_AUTO_TEST_CASE(api_faults) {
  kill_and_resume("api-faults", chaos_seed(202), sized(130, 560), sized<std::size_t>(60, 200), sized(25, 100),
                  sized(2, 10),
                  {"--fault-5xx-rate", "0.05", "--fault-429-rate", "0.02", "--watch-drop-after", "5s",
                   "--watch-history", "50"});
}

BOOST_AUTO_TEST_CASE(failover) {
  stop_leader_repeatedly("failover", chaos_seed(303), sized(100, 200), sized(20, 40), sized(2, 5), SIGKILL);
}

BOOST_AUTO_TEST_CASE(shutdown) {
  stop_leader_repeatedly("shutdown", chaos_seed(404), sized(100, 200), sized(20, 40), sized(2, 5), SIGTERM);
}

BOOST_AUTO_TEST_CASE(delete_recreate) {
  long long started = now_ms();
  uint64_t seed = chaos_seed(505);
  scenario s(driver, fleet_flags(sized(100, 240), seed));
  auto truth = truth_of(s.sim(), driver);
  auto candidates = candidate_keys(truth);
  BOOST_REQUIRE(candidates.size() >= 20);
  const std::string name = "phoenix";
  auto requests = create_requests(s.sim(), {name}, 4);
  controller_fleet fleet(s, controller_flags(sized(40, 100)));
  fleet.start();
  violations v;
  std::mt19937_64 rng(seed);
  std::size_t before_delete = std::uniform_int_distribution<std::size_t>(3, 10)(rng);
  bool mid_run = eventually(
    [&] { return read_audit(s.sim()).of_request(requests[0].uid).size() >= before_delete; }, 60s, 100ms);
  BOOST_REQUIRE_MESSAGE(mid_run, "the first run never created " << before_delete << " VMIMs");
  // The first run's next status patch is held by the simulator until after the request
  // was deleted and re-created, so it reaches storage aimed at the new object: only its
  // uid test keeps the old run's counters off it.
  const long long hold_ms = 3000;
  int hold = hold_requests(s.sim(), "PATCH", requests_path + "/" + name + "/status", hold_ms);
  bool held = eventually([&] { return answer_fault_fired(s.sim(), hold) >= 1; }, 30s, 20ms);
  BOOST_REQUIRE_MESSAGE(held, "the first run wrote no status within 30 s");
  long long held_at = now_ms();
  delete_request(s.sim(), name);
  BOOST_REQUIRE(eventually([&] { return get_request(s.sim(), name).is_null(); }, 10s, 50ms));
  requests[0].deleted_by_test = true;
  requests[0].deleted_ms = now_ms();
  auto again = create_request(s.sim(), name, request_spec(cool_off, 4));
  requests.push_back({name, again["metadata"].value("uid", ""), false, now_ms(), -1});
  const auto& fresh = requests.back();
  v.expect(fresh.uid != requests[0].uid, "the re-created request has the old uid");
  v.expect(fresh.created_ms < held_at + hold_ms - 200,
           "re-created at " + clock_text(fresh.created_ms) + ", too late for the patch held at "
             + clock_text(held_at) + ": make the hold longer");

  // While it runs: the new object never shows more successes than the audit has VMIMs
  // of its own uid (an old run's counters landing on it would), nor a start before it
  // existed.
  long long checks = 0;
  const std::vector<std::string> stage_order = {"Pending", "Evaluating", "Migrating", "Final"};
  std::size_t stage_seen = 0;
  bool final = eventually(
    [&] {
      auto obj = get_request(s.sim(), name);
      auto audit = read_audit(s.sim());
      if (obj.is_null())
        return false;
      ++checks;
      long long ok = 0;
      for (auto& m : audit.of_request(fresh.uid))
        ok += m.succeeded() ? 1 : 0;
      long long shown = obj.value("/status/vmHyperconvergence/successful"_json_pointer, 0LL);
      v.expect(shown <= ok, "the re-created request shows successful " + std::to_string(shown)
                              + " while the audit has " + std::to_string(ok) + " Succeeded VMIMs of its uid");
      // Forward only, Pending to Final: an old run's write landing would set it back.
      auto rank = std::find(stage_order.begin(), stage_order.end(), stage_of(obj)) - stage_order.begin();
      if (rank < static_cast<long>(stage_order.size())) {
        v.expect(static_cast<std::size_t>(rank) >= stage_seen,
                 "the re-created request went back from " + stage_order[stage_seen] + " to " + stage_of(obj));
        stage_seen = std::max(stage_seen, static_cast<std::size_t>(rank));
      }
      auto start = parse_time_ms(obj.value("/status/startTimestamp"_json_pointer, std::string()));
      v.expect(start < 0 || start >= fresh.created_ms / 1000 * 1000,
               "the re-created request's startTimestamp " + clock_text(start) + " is before it was created at "
                 + clock_text(fresh.created_ms));
      return stage_of(obj) == "Final";
    },
    final_timeout(), 300ms);
  v.expect(final, "the re-created request did not reach Final in time");
  int code = fleet.running().empty() ? -1 : fleet.running().back()->terminate();
  v.expect(code == 0, "the controller exited " + std::to_string(code) + " on SIGTERM");

  auto audit = read_audit(s.sim());
  // Deleted: the old run stops writing its status (one second of grace for writes in
  // flight) up to the re-creation; afterwards its held patch must fail its uid test
  // (422), and the new object's counters are checked against the new uid below.
  std::size_t refused_after = 0;
  std::size_t conflicts = 0;
  for (auto& w : audit.writes) {
    if (!w.by_schedopt() || w.resource != "schedulingoptimizations" || w.subresource != "status" || w.name != name)
      continue;
    if (w.time_ms > requests[0].deleted_ms + 1000 && w.time_ms < fresh.created_ms - 50)
      v.expect(false, "status write to deleted " + name + " at " + clock_text(w.time_ms) + " (code "
                        + std::to_string(w.code) + "), after its deletion at " + clock_text(requests[0].deleted_ms));
    if (w.time_ms >= fresh.created_ms && w.code == 422)
      ++refused_after;
    conflicts += w.code == 409 ? 1 : 0;
  }
  v.expect(answer_fault_fired(s.sim(), hold) == 1, "the hold rule took more than the one patch");
  v.expect(refused_after >= 1, "the old run's held status patch, released after the re-create, was not "
                               "refused (422) by its uid test");
  // PATCH has no precondition a 409 could come from; the uid test answers 422.
  v.expect(conflicts == 0, std::to_string(conflicts) + " status writes answered 409");
  auto end = check_end_state(s.sim(), audit, truth, requests, cool_off_ms, v);
  std::string injected = "delete after " + std::to_string(before_delete) + " VMIMs, "
                         + std::to_string(checks) + " live checks, old run's patch held "
                         + std::to_string(hold_ms) + " ms, " + std::to_string(refused_after)
                         + " status writes refused (422) after re-create, " + std::to_string(candidates.size())
                         + " candidates";
  print_summary("delete-recreate", seed, injected, end, v.count(), started);
}

BOOST_AUTO_TEST_SUITE_END()
