// docs/design.md §1.2 queueing and §3–§4 lifecycle: requests run one at a time, a controller killed
// mid-run resumes without migrating a VM twice, a request deleted mid-run stops work, and
// with --leader-elect only the Lease holder works and a replica that loses it exits.
#include <ctime>
#include <unistd.h>

#include <fstream>
#include <thread>
#include <filesystem>
#include <boost/test/unit_test.hpp>

#include "e2e/e2e_fixture.hpp"

using namespace schedopt::e2e;

namespace {

/// VMIMs labelled with the request's uid, counted per "<ns>/<vmi>".
std::map<std::string, int> vmims_of_request(const scenario& s, const std::string& uid) {
  std::map<std::string, int> out;
  for (auto& m : items(s.sim(), vmims_path + "?labelSelector=" + request_uid_label + "%3D" + uid))
    ++out[m["metadata"]["namespace"].get<std::string>() + "/" + m["spec"]["vmiName"].get<std::string>()];
  return out;
}

const std::string lease_path = "/apis/coordination.k8s.io/v1/namespaces/default/leases/schedopt-leader";

/// The identity `schedopt run` uses: "<hostname>_<pid>".
std::string identity_of(const child_process& c) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return std::string{host} + "_" + std::to_string(c.pid());
}

std::string lease_holder(const sim_process& sim) {
  if (status_of(sim, "GET", lease_path) != 200)
    return {};
  return get(sim, lease_path).value("/spec/holderIdentity"_json_pointer, std::string());
}

long readyz(const child_process& c) {
  auto port = c.health_port();
  return port > 0 ? plain_get("http://127.0.0.1:" + std::to_string(port) + "/readyz").status : 0;
}

std::string now_micro_time() {
  std::time_t t = std::time(nullptr);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S.000000Z", std::gmtime(&t));
  return buf;
}

} // namespace

BOOST_AUTO_TEST_SUITE(lifecycle)

BOOST_AUTO_TEST_CASE(a_second_request_waits_pending_until_the_first_is_final) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "30", "--misplaced", "0.4", "--seed", "29",
                              "--migration-duration", "300ms"});
  auto expected = migratable_candidates(s.truth());
  BOOST_REQUIRE(expected.size() >= 5);
  s.create_request("queue-a", scenario::enabled_spec());
  s.create_request("queue-b", scenario::enabled_spec());
  s.start_controller();
  bool b_seen_pending = false;
  std::size_t violations = 0;
  json a, b;
  bool done = eventually(
    [&] {
      b = s.request("queue-b");
      a = s.request("queue-a");
      auto a_stage = a.value("/status/stage"_json_pointer, std::string());
      auto b_stage = b.value("/status/stage"_json_pointer, std::string());
      if (a_stage != "Final") {
        // b was read before a: if a is still not Final, b cannot have been promoted.
        if (b_stage == "Pending")
          b_seen_pending = true;
        else if (!b_stage.empty()) {
          ++violations;
          BOOST_TEST_MESSAGE("queue-b in stage " << b_stage << " while queue-a is " << a_stage);
        }
      }
      return b_stage == "Final";
    },
    final_timeout, std::chrono::milliseconds(50));
  BOOST_REQUIRE_MESSAGE(done, "queue-b not Final in time: " + b.dump());
  BOOST_TEST(violations == 0u);
  BOOST_TEST(b_seen_pending);
  BOOST_TEST(status_of_request(a) == "Successful");
  BOOST_TEST(counter(a, "successful") == (long long)expected.size());
  BOOST_TEST(b.value("/status/status"_json_pointer, std::string()) == "Successful");
  BOOST_TEST(reason_of_request(b) == "");
  BOOST_TEST(counter(b, "successful") == 0);
  BOOST_TEST(b["status"].value("startTimestamp", "") >= a["status"].value("finishTimestamp", ""));
  BOOST_TEST(s.controller().terminate() == 0);
}

// The next request is evaluated right after the previous one is Final, while the moved
// VMIs may still name their old node: the simulator holds each VMI's new nodeName back
// 1.5 s after its VMIM is Succeeded. Those VMs are where they belong; the second request
// must neither count them as candidates nor skip them as cooling off.
BOOST_AUTO_TEST_CASE(a_request_right_after_another_sees_the_moved_vms_where_they_went) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "30", "--misplaced", "0.4", "--seed", "29",
                              "--migration-duration", "300ms", "--vmi-update-lag", "1500ms"});
  auto expected = migratable_candidates(s.truth());
  BOOST_REQUIRE(expected.size() >= 5);
  s.create_request("lag-a", scenario::enabled_spec());
  s.create_request("lag-b", scenario::enabled_spec());
  s.start_controller();
  auto a = s.wait_final("lag-a");
  auto b = s.wait_final("lag-b");
  BOOST_TEST(status_of_request(a) == "Successful");
  BOOST_TEST(counter(a, "successful") == (long long)expected.size());
  BOOST_TEST(status_of_request(b) == "Successful");
  BOOST_TEST(reason_of_request(b) == "");
  BOOST_TEST(counter(b, "skipped") == 0);
  BOOST_TEST(counter(b, "successful") == 0);
  BOOST_TEST(vm_status(b).value("details", json::array()).size() == 0u);
  BOOST_TEST(s.schedopt_vmims().size() == expected.size()); // all of lag-a's
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_CASE(a_killed_controller_resumes_without_migrating_twice) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "30", "--misplaced", "0.4", "--seed", "31",
                              "--migration-duration", "2s", "--parallel-migrations-per-cluster", "10"});
  auto expected = migratable_candidates(s.truth());
  BOOST_REQUIRE(expected.size() >= 6);
  s.start_controller();
  auto created = s.create_request("resumed", scenario::enabled_spec({{"maxParallelMigrations", 2}}));
  std::string uid = created["metadata"]["uid"];
  json r;
  bool mid_run = eventually(
    [&] {
      r = s.request("resumed");
      return counter(r, "successful") >= 2 && vmims_of_request(s, uid).size() >= 3;
    },
    final_timeout, std::chrono::milliseconds(100));
  BOOST_REQUIRE_MESSAGE(mid_run, "request never got mid-run: " + r.dump());
  BOOST_REQUIRE(r.value("/status/stage"_json_pointer, std::string()) != "Final");
  s.controller().kill_hard();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  s.start_controller();
  r = s.wait_final("resumed");
  BOOST_TEST(status_of_request(r) == "Successful");
  BOOST_TEST(counter(r, "successful") == (long long)expected.size());
  BOOST_TEST(counter(r, "failed") == 0);
  BOOST_TEST(counter(r, "skipped") == 0);
  auto per_vm = vmims_of_request(s, uid);
  BOOST_TEST(per_vm.size() == expected.size());
  for (auto& [vm, n] : per_vm)
    BOOST_TEST_CONTEXT("vm " << vm) { BOOST_TEST(n == 1); }
  auto details = details_by_vm(r);
  for (auto& t : expected)
    BOOST_TEST_CONTEXT("vm " << t.key()) {
      BOOST_REQUIRE(details.count(t.key()) == 1);
      BOOST_TEST(details[t.key()].value("status", "") == "Successful");
    }
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_CASE(a_request_deleted_mid_run_stops_new_migrations) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "30", "--misplaced", "0.5", "--seed", "37",
                              "--migration-duration", "2s", "--parallel-migrations-per-cluster", "10"});
  auto expected = migratable_candidates(s.truth());
  BOOST_REQUIRE(expected.size() >= 6);
  auto& ctl = s.start_controller();
  s.create_request("doomed", scenario::enabled_spec({{"maxParallelMigrations", 2}}));
  BOOST_REQUIRE(eventually([&] { return s.schedopt_vmims().size() >= 1; }, final_timeout));
  call(s.sim(), "DELETE", requests_path + "/doomed");
  BOOST_REQUIRE(eventually([&] { return status_of(s.sim(), "GET", requests_path + "/doomed") == 404; },
                           std::chrono::seconds(10)));
  // One second for the deletion to reach the controller's watch; after that, no new VMIM.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  std::set<std::string> before;
  for (auto& m : s.schedopt_vmims())
    before.insert(m["metadata"]["name"].get<std::string>());
  std::set<std::string> added;
  eventually(
    [&] {
      for (auto& m : s.schedopt_vmims())
        if (!before.count(m["metadata"]["name"].get<std::string>()))
          added.insert(m["metadata"]["name"].get<std::string>());
      return false;
    },
    std::chrono::seconds(6), std::chrono::milliseconds(200));
  BOOST_TEST(added.empty(), "VMIMs created after the request was deleted: " << added.size());
  BOOST_TEST(before.size() < expected.size());
  BOOST_TEST(ctl.running());
  // "No crash, no error storm": the deletion is logged at info level, nothing at error.
  auto log = ctl.err();
  BOOST_TEST(log.find("Z error ") == std::string::npos);
  BOOST_TEST(log.find("Z critical ") == std::string::npos);
  auto port = ctl.health_port();
  BOOST_REQUIRE(port > 0);
  BOOST_TEST(plain_get("http://127.0.0.1:" + std::to_string(port) + "/healthz").status == 200);
  BOOST_TEST(ctl.terminate() == 0);
}

BOOST_AUTO_TEST_CASE(sigterm_before_the_informers_sync_exits_0_at_once) {
  // A controller whose informers can never list (here: nothing listens on the API port;
  // in a cluster: RBAC missing) must still honour SIGTERM within the kubelet's grace.
  char dir[] = "/tmp/schedopt-unsynced-XXXXXX";
  BOOST_REQUIRE(mkdtemp(dir));
  std::string kubeconfig = std::string{dir} + "/kubeconfig";
  std::ofstream{kubeconfig} << "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                               "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1', "
                               "insecure-skip-tls-verify: true}}]\n"
                               "users: [{name: u, user: {token: t}}]\n"
                               "contexts: [{name: c, context: {cluster: c, user: u}}]\n";
  child_process run({"run", "--kubeconfig", kubeconfig, "--driver", "csi-topology",
                     "--metrics-listen", "127.0.0.1:0", "--health-listen", "127.0.0.1:0"});
  std::this_thread::sleep_for(std::chrono::seconds(2));
  BOOST_REQUIRE(run.running());
  auto sent = std::chrono::steady_clock::now();
  run.signal(SIGTERM);
  int code = run.wait_exit(std::chrono::seconds(10));
  auto took = std::chrono::steady_clock::now() - sent;
  BOOST_TEST(code == 0, "exit code " << code << "; stderr: " << run.err());
  auto took_ms = std::chrono::duration_cast<std::chrono::milliseconds>(took).count();
  BOOST_TEST(took_ms < 5000, "took " << took_ms << " ms");
  run.kill_hard();
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(with_leader_election_one_replica_works_and_a_lost_lease_exits_non_zero) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "20", "--misplaced", "0.4", "--seed", "41",
                              "--migration-duration", "300ms", "--parallel-migrations-per-cluster", "10"});
  auto expected = migratable_candidates(s.truth());
  BOOST_REQUIRE(expected.size() >= 2);
  const std::vector<std::string> elect = {"--leader-elect", "--lease-duration", "3s",
                                          "--renew-deadline", "2s", "--retry-period", "500ms"};
  s.start_controller(elect);
  s.start_controller(elect);
  auto& a = s.controller(0);
  auto& b = s.controller(1);
  std::string holder;
  BOOST_REQUIRE(eventually([&] { return !(holder = lease_holder(s.sim())).empty(); },
                           std::chrono::seconds(30)));
  BOOST_REQUIRE(holder == identity_of(a) || holder == identity_of(b));
  auto& leader = holder == identity_of(a) ? a : b;
  auto& follower = holder == identity_of(a) ? b : a;
  // Both replicas are ready (a standby that is not ready stalls every rolling update and
  // its PDB blocks every drain); leadership shows in schedopt_leader only.
  BOOST_REQUIRE(eventually([&] { return readyz(leader) == 200 && readyz(follower) == 200; },
                           std::chrono::seconds(15)));
  BOOST_REQUIRE(eventually([&] { return metric(leader, "schedopt_leader") == 1; },
                           std::chrono::seconds(15)));
  BOOST_TEST(metric(follower, "schedopt_leader") == 0);

  s.create_request("led", scenario::enabled_spec());
  auto r = s.wait_final("led");
  BOOST_TEST(status_of_request(r) == "Successful");
  BOOST_TEST(counter(r, "successful") == (long long)expected.size());
  BOOST_TEST(metric(follower, "schedopt_leader") == 0); // the follower never started working
  BOOST_TEST(readyz(follower) == 200);
  BOOST_TEST(lease_holder(s.sim()) == identity_of(leader));

  // Someone else takes the Lease (an operator, a partitioned replica's successor): the
  // leader cannot renew within its renew deadline and must exit non-zero at once.
  // Read-modify-write as any client does: a renewal between the read and the PUT answers
  // 409, and the intruder reads again.
  bool stolen = eventually(
    [&] {
      auto lease = get(s.sim(), lease_path);
      lease["spec"]["holderIdentity"] = "intruder";
      lease["spec"]["renewTime"] = now_micro_time();
      lease["spec"]["leaseDurationSeconds"] = 3600;
      return schedopt::test::http_request(s.sim(), "PUT", lease_path, lease.dump()).status == 200;
    },
    std::chrono::seconds(10), std::chrono::milliseconds(50));
  BOOST_REQUIRE_MESSAGE(stolen, "the intruder's PUT of the Lease never won over the renewals");
  int code = leader.wait_exit(std::chrono::seconds(20));
  BOOST_TEST(code == 1, "leader exit code " << code);
  BOOST_TEST(leader.err().find("lease lost") != std::string::npos);
  BOOST_TEST(follower.running());
  BOOST_TEST(metric(follower, "schedopt_leader") == 0); // the intruder's lease has not expired

  // The intruder goes away: the follower takes the Lease and works.
  call(s.sim(), "DELETE", lease_path);
  BOOST_REQUIRE(eventually([&] { return lease_holder(s.sim()) == identity_of(follower); },
                           std::chrono::seconds(15)));
  BOOST_REQUIRE(eventually([&] { return metric(follower, "schedopt_leader") == 1; },
                           std::chrono::seconds(10)));
  s.create_request("after-takeover", scenario::enabled_spec());
  auto r2 = s.wait_final("after-takeover");
  BOOST_TEST(status_of_request(r2) == "Successful");
  BOOST_TEST(follower.terminate() == 0);
  BOOST_TEST(status_of(s.sim(), "GET", lease_path) == 200);
  BOOST_TEST(lease_holder(s.sim()).empty()); // released on clean shutdown
}

BOOST_AUTO_TEST_SUITE_END()
