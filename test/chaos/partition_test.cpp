// A leader cut off from the API server, not killed (docs/design.md §4.3): two replicas
// with --leader-elect, the simulator partitions the leader mid-run (its requests hang
// unanswered, never applied). The old leader must stop writing when its renew deadline
// passes and exit non-zero, the other replica takes over, and the request ends exact.
// Judged by the simulator's audit. SCHEDOPT_CHAOS_FULL=1 partitions more leaders in a
// larger run.
#include <boost/test/unit_test.hpp>

#include "chaos/chaos_harness.hpp"

using namespace schedopt::chaos;
using schedopt::e2e::eventually;
using schedopt::e2e::scenario;

namespace {

const std::string driver = "csi-topology";
const std::string cool_off = "1h"; // longer than the run: a second VMIM of a VM is a violation
constexpr auto cool_off_ms = std::chrono::milliseconds(3600 * 1000);

// 3s / 2s / 500ms: renewDeadline 2s > 1.2 x 500ms.
const std::vector<std::string> short_lease = {"--leader-elect", "--lease-duration", "3s",
                                              "--renew-deadline", "2s", "--retry-period", "500ms"};
constexpr long long lease_duration_ms = 3000;
constexpr long long retry_period_ms = 500;

struct partition_event {
  std::string leader; // identity cut off
  long long at_ms;    // when the partition began
  long long exit_ms;  // when the process was seen gone (-1: never)
  int exit_code;
};

/// The last write of `who` the server received (answered 2xx or not).
long long last_write_of(const audit_record& audit, const std::string& who) {
  long long last = -1;
  for (auto& w : audit.writes)
    if (w.by_schedopt() && w.replica() == who)
      last = std::max(last, w.time_ms);
  return last;
}

long long first_write_by_other(const audit_record& audit, const std::string& gone, long long after_ms,
                               bool lease_only) {
  long long first = -1;
  for (auto& w : audit.writes)
    if (w.by_schedopt() && w.ok() && w.replica() != gone && w.time_ms > after_ms && w.lease() == lease_only
        && (first < 0 || w.time_ms < first))
      first = w.time_ms;
  return first;
}

bool all_final(const sim_process& sim, const std::vector<tracked_request>& requests) {
  for (auto& r : requests)
    if (!r.deleted_by_test && stage_of(get_request(sim, r.name)) != "Final")
      return false;
  return true;
}

/// VMIMs the audit credits to `who`.
std::size_t vmims_by(const sim_process& sim, const std::string& who) {
  auto audit = read_audit(sim);
  std::size_t n = 0;
  for (auto& m : audit.vmims)
    if (m.created_by.find("(" + who + ")") != std::string::npos)
      ++n;
  return n;
}

void partition_leader(const std::string& name, uint64_t seed, int vmis, int per_run_cap, int times) {
  long long started = now_ms();
  scenario s(driver, {"--nodes", "10", "--vmis", std::to_string(vmis), "--misplaced", "0.5",
                      "--migration-duration", sized<std::string>("1s", "1500ms"),
                      "--parallel-migrations-per-cluster", "12",
                      "--parallel-outbound-migrations-per-node", "3", "--seed", std::to_string(seed),
                      "--kubevirt-version", chaos_kubevirt_version()});
  auto truth = truth_of(s.sim(), driver);
  auto candidates = candidate_keys(truth);
  BOOST_REQUIRE_MESSAGE(candidates.size() >= 20, "only " << candidates.size() << " candidates");
  std::vector<std::string> flags = {"--log-level", "info", "--max-non-hyperconverged-per-run",
                                    std::to_string(per_run_cap)};
  flags.insert(flags.end(), short_lease.begin(), short_lease.end());
  controller_fleet fleet(s, flags);
  fleet.start();
  fleet.start();
  std::string leader = wait_leader(s.sim(), fleet, "", 30s, 50ms);
  BOOST_REQUIRE_MESSAGE(!leader.empty(), "no replica took the Lease");
  auto obj = create_request(s.sim(), name, request_spec(cool_off, 6));
  std::vector<tracked_request> requests = {{name, obj["metadata"].value("uid", ""), false, now_ms(), -1}};

  violations v;
  counter_watch counters;
  std::vector<partition_event> events;
  for (int i = 0; i < times; ++i) {
    // Mid-run: the leader has created migrations of its own since the last partition.
    bool working = eventually([&] { return vmims_by(s.sim(), leader) >= 2 || all_final(s.sim(), requests); },
                              30s, 50ms);
    if (!working || all_final(s.sim(), requests))
      break;
    auto* proc = fleet.by_identity(leader);
    BOOST_REQUIRE(proc != nullptr);
    // Long enough that the old leader's held requests outlive its renew deadline and
    // the new leader's takeover; the "(" ")" keep one pid from matching a longer one.
    json cut = {{"userAgent", "(" + leader + ")"}, {"for", "6s"}};
    auto reply = api(s.sim(), "POST", "/admin/partitions", cut.dump());
    BOOST_REQUIRE_MESSAGE(reply.status == 201, "POST /admin/partitions answered " << reply.status << ": "
                                                                                  << reply.body);
    partition_event e{leader, now_ms(), -1, -1};
    e.exit_code = proc->wait_exit(10s);
    e.exit_ms = e.exit_code == -1 ? -1 : now_ms();
    v.expect(e.exit_code != -1 && e.exit_code != 0,
             "partition #" + std::to_string(i + 1) + ": " + leader + " exit code " + std::to_string(e.exit_code)
               + " within 10 s (want non-zero; -1: still running)");
    if (e.exit_code == -1)
      proc->kill_hard();
    // It stops when its renew deadline passes (the last renewal was at most a retry
    // period before the cut), before anyone could take the Lease (leaseDuration).
    if (e.exit_ms >= 0)
      v.expect(e.exit_ms - e.at_ms < lease_duration_ms,
               "partition #" + std::to_string(i + 1) + ": " + leader + " exited "
                 + std::to_string(e.exit_ms - e.at_ms) + " ms after the cut, not within leaseDuration "
                 + std::to_string(lease_duration_ms) + " ms");
    events.push_back(e);
    counters.sample(s.sim(), requests, v);
    fleet.start(); // two replicas again
    auto next = wait_leader(s.sim(), fleet, leader, 30s, 50ms);
    v.expect(!next.empty(), "no new leader within 30 s of partition #" + std::to_string(i + 1));
    if (next.empty())
      break;
    leader = next;
  }
  auto stuck = wait_all_final(s.sim(), requests, std::chrono::seconds(sized(60, 300)));
  counters.sample(s.sim(), requests, v);
  v.expect(stuck.empty(), "the request did not reach Final: " + stuck);
  v.expect(!events.empty(), "no partition landed mid-run");

  // The partitions did cut something: at least the old leaders' renewals.
  auto listed = api(s.sim(), "GET", "/admin/partitions").json();
  long long held = 0;
  for (auto& p : listed.value("partitions", json::array()))
    held += p.value("held", 0LL);
  v.expect(held >= static_cast<long long>(events.size()),
           "the partitions held " + std::to_string(held) + " requests for " + std::to_string(events.size())
             + " partitions");
  api(s.sim(), "DELETE", "/admin/partitions");

  for (auto* p : fleet.running()) {
    int code = p->terminate();
    v.expect(code == 0, "a replica exited " + std::to_string(code) + " on the final SIGTERM");
  }
  auto audit = read_audit(s.sim());
  std::ostringstream takeovers;
  for (std::size_t i = 0; i < events.size(); ++i) {
    auto& e = events[i];
    long long lease = first_write_by_other(audit, e.leader, e.at_ms, true);
    long long work = first_write_by_other(audit, e.leader, e.at_ms, false);
    long long last_old = last_write_of(audit, e.leader);
    long long first_new = lease >= 0 && work >= 0 ? std::min(lease, work) : std::max(lease, work);
    std::string which = "partition #" + std::to_string(i + 1) + " of " + e.leader + " at " + clock_text(e.at_ms);
    v.expect(first_new >= 0, which + ": no other replica wrote afterwards");
    v.expect(last_old < first_new, which + ": its last write at " + clock_text(last_old)
                                     + " is not before the new leader's first at " + clock_text(first_new));
    // Its last renewal was at most a retry period before the cut; the others observe
    // expiry from their own reads, up to a retry period later.
    v.expect(lease >= 0 && lease - e.at_ms <= lease_duration_ms + 2 * retry_period_ms + 500,
             which + ": first Lease write by another replica at " + clock_text(lease));
    v.expect(work >= 0, which + ": no other replica wrote anything but the Lease afterwards");
    takeovers << (i ? ", " : "") << "exit " << (e.exit_ms >= 0 ? std::to_string(e.exit_ms - e.at_ms) : "-")
              << " lease " << (lease >= 0 ? std::to_string(lease - e.at_ms) : "-") << " work "
              << (work >= 0 ? std::to_string(work - e.at_ms) : "-");
  }
  auto end = check_end_state(s.sim(), audit, truth, requests, cool_off_ms, v);
  std::string injected = std::to_string(events.size()) + " leader partition (ms after the cut: "
                         + takeovers.str() + "), " + std::to_string(held) + " requests held, "
                         + std::to_string(candidates.size()) + " candidates";
  print_summary(name, seed, injected, end, v.count(), started);
}

} // namespace

BOOST_AUTO_TEST_SUITE(chaos)

BOOST_AUTO_TEST_CASE(leader_partition) {
  partition_leader("leader-partition", chaos_seed(606), sized(100, 300), sized(24, 90), sized(1, 3));
}

BOOST_AUTO_TEST_SUITE_END()
