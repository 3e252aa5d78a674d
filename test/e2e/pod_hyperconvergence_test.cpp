// docs/design.md §9: podHyperconvergence against the real binaries. A fleet of stateful
// pods converges after a pool failover with counters equal to the ground truth computed
// from the simulator's objects; a budget that allows no disruption is never violated
// (the audit's eviction records) and its pods end DisruptionBudget; a replacement the
// scheduler puts off the replica nodes fails RescheduledOffReplica; a request with both
// kinds runs both, each block exact; `explain --kind podHyperconvergence` agrees with the
// ground truth and with plan, and writes nothing.
#include <boost/test/unit_test.hpp>

#include "e2e/pod_facts.hpp"

using namespace schedopt::e2e;

namespace {

/// Writes (evictions included) made by a schedopt process (its User-Agent), as the audit
/// records them.
std::size_t schedopt_writes(const json& a) {
  std::size_t n = 0;
  for (auto& w : a.value("writes", json::array()))
    n += w.value("identity", "").find("schedopt") != std::string::npos;
  return n;
}

struct cli_run {
  int code = -1;
  std::string out;
  std::string err;
};

cli_run run_cli(const scenario& s, const char* command, const std::vector<std::string>& args) {
  child_process p(s.client_args(command, args));
  cli_run r;
  r.code = p.wait_exit(std::chrono::seconds(60));
  r.out = p.out();
  r.err = p.err();
  return r;
}

} // namespace

BOOST_AUTO_TEST_SUITE(pod_hyperconvergence)

BOOST_AUTO_TEST_CASE(a_fleet_of_stateful_pods_converges_after_a_failover, *boost::unit_test::timeout(240)) {
  scenario s("portworx", {"--nodes", "8", "--vmis", "20", "--pods", "200", "--pods-misplaced", "0.25",
                          "--seed", "21", "--pod-start-delay", "200ms", "--pod-termination-delay", "200ms",
                          "--pod-recreate-delay", "100ms"});
  fail_over(s);
  auto verdicts = expected_verdicts(pod_ground_truth(s.sim(), "portworx"));
  std::map<std::string, long long> expected;
  for (auto& [pod, v] : verdicts)
    ++expected[v];
  BOOST_REQUIRE_MESSAGE(expected["eligible"] >= 10, "scenario has too few eligible pods");
  BOOST_REQUIRE_MESSAGE(expected["NoController"] + expected["SchedulerNotStorageAware"] > 0,
                        "scenario has no pod a filter skips");

  s.start_controller();
  s.create_request("pods", pod_spec({{"maxParallelEvictions", 10}}));
  auto r = s.wait_final("pods", std::chrono::seconds(180));

  long long skipped = (long long)verdicts.size() - expected["eligible"];
  BOOST_TEST(status_of_request(r) == (skipped ? "PartialSuccess" : "Successful"), r.dump());
  BOOST_TEST(pod_counter(r, "successful") == expected["eligible"], r.dump());
  BOOST_TEST(pod_counter(r, "failed") == 0);
  BOOST_TEST(pod_counter(r, "skipped") == skipped);
  BOOST_TEST(!r["status"].contains("vmHyperconvergence")); // that kind was not asked for
  auto details = pod_details(r);
  for (auto& [pod, v] : verdicts)
    BOOST_TEST_CONTEXT("pod " << pod << " expected " << v) {
      BOOST_REQUIRE(details.count(pod) == 1);
      if (v == "eligible")
        BOOST_TEST(details[pod].value("status", "") == "Successful");
      else
        BOOST_TEST(kind_of(details[pod].value("reason", "")) == v);
    }

  // Judged by the cluster: every eligible pod was evicted once, nothing else was, no
  // budget was violated, and every workload's pods now run on their best nodes.
  auto a = audit(s.sim());
  auto evicted = accepted_evictions(a);
  BOOST_TEST(evicted.size() == (std::size_t)expected["eligible"]);
  for (auto& [pod, v] : verdicts)
    BOOST_TEST_CONTEXT("pod " << pod) { BOOST_TEST(evicted[pod] == (v == "eligible" ? 1 : 0)); }
  BOOST_TEST(budget_violations(a).empty());
  for (auto& t : pod_ground_truth(s.sim(), "portworx"))
    if (t.owner_kind == "StatefulSet" && t.scheduler_name == "stork" && t.has_driver_volume && t.error.empty())
      BOOST_TEST_CONTEXT("pod " << t.key() << " on " << t.node) { BOOST_TEST(!t.misplaced); }
  BOOST_TEST(metric(s.controller(), "schedopt_evictions_total{result=\"evicted\"}") >= (double)expected["eligible"]);
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_CASE(a_budget_that_allows_no_disruption_is_never_violated, *boost::unit_test::timeout(240)) {
  // Half the workloads' budgets say maxUnavailable: 0. The run's deadline closes the
  // eviction window early, so the test does not wait out its two minutes of grace.
  scenario s("portworx", {"--nodes", "6", "--vmis", "10", "--pods", "80", "--pods-misplaced", "0.4",
                          "--pods-uncontrolled", "0", "--pods-default-scheduler", "0", "--pdb-blocked", "0.5",
                          "--seed", "5", "--pod-start-delay", "200ms", "--pod-termination-delay", "200ms",
                          "--pod-recreate-delay", "100ms"});
  auto verdicts = expected_verdicts(pod_ground_truth(s.sim(), "portworx"));
  // Which pods a budget of maxUnavailable 0 covers (budget NAME selects app=NAME).
  std::set<std::string> blocked_apps;
  for (auto& b : items(s.sim(), budgets_path))
    if (b.value("/spec/maxUnavailable"_json_pointer, json()) == json(0))
      blocked_apps.insert(b["metadata"]["namespace"].get<std::string>() + "/"
                          + b.value("/spec/selector/matchLabels/app"_json_pointer, std::string()));
  std::set<std::string> blocked;
  for (auto& p : items(s.sim(), pods_path)) {
    auto ns = p["metadata"]["namespace"].get<std::string>();
    if (blocked_apps.count(ns + "/" + p.value("/metadata/labels/app"_json_pointer, std::string())))
      blocked.insert(ns + "/" + p["metadata"]["name"].get<std::string>());
  }
  long long eligible_blocked = 0, eligible_free = 0;
  for (auto& [pod, v] : verdicts)
    if (v == "eligible")
      ++(blocked.count(pod) ? eligible_blocked : eligible_free);
  BOOST_REQUIRE_MESSAGE(eligible_blocked > 0 && eligible_free > 0, "scenario lacks blocked or free pods");

  s.start_controller({"--max-run-duration", "25s"});
  s.create_request("budgets", pod_spec({{"maxParallelEvictions", 10}}));
  auto r = s.wait_final("budgets", std::chrono::seconds(120));
  BOOST_TEST(status_of_request(r) == "PartialSuccess", r.dump());
  auto details = pod_details(r);
  for (auto& [pod, v] : verdicts)
    if (v == "eligible")
      BOOST_TEST_CONTEXT("pod " << pod) {
        BOOST_REQUIRE(details.count(pod) == 1);
        if (blocked.count(pod)) {
          BOOST_TEST(details[pod].value("status", "") == "Skipped");
          BOOST_TEST(starts_with(details[pod].value("reason", ""), "DisruptionBudget: The disruption budget "));
        } else {
          BOOST_TEST(details[pod].value("status", "") == "Successful");
        }
      }
  BOOST_TEST(pod_counter(r, "successful") == eligible_free);
  auto a = audit(s.sim());
  BOOST_TEST(budget_violations(a).empty());
  auto evicted = accepted_evictions(a);
  for (auto& pod : blocked)
    BOOST_TEST_CONTEXT("pod " << pod) { BOOST_TEST(evicted[pod] == 0); }
  // Each blocked pod was asked more than once (retried while the window was open), and
  // every refusal was the budget's 429.
  std::map<std::string, int> refused;
  for (auto& e : a.value("evictions", json::array()))
    if (blocked.count(e.value("namespace", "") + "/" + e.value("pod", ""))) {
      BOOST_TEST(e.value("code", 0) == 429);
      ++refused[e.value("namespace", "") + "/" + e.value("pod", "")];
    }
  for (auto& [pod, n] : refused)
    BOOST_TEST_CONTEXT("pod " << pod) { BOOST_TEST(n >= 2); }
  // The blocked workloads were never disrupted: their cool-off record was put back.
  for (auto& set : items(s.sim(), "/apis/apps/v1/statefulsets"))
    if (blocked_apps.count(set["metadata"]["namespace"].get<std::string>() + "/"
                           + set["metadata"]["name"].get<std::string>()))
      BOOST_TEST(!set.value("/metadata/annotations"_json_pointer, json::object())
                    .contains("schedopt.libopenstorage.org/last-eviction-time-pods"));
}

BOOST_AUTO_TEST_CASE(a_replacement_scheduled_off_its_replicas_fails, *boost::unit_test::timeout(180)) {
  // One eviction at a time, and a slow termination: between the eviction and the
  // replacement's scheduling the test cordons the evicted pod's best nodes, so stork
  // finds none of them admissible and places it elsewhere.
  scenario s("portworx", {"--nodes", "8", "--vmis", "4", "--pods", "30", "--pods-misplaced", "0.3",
                          "--pods-uncontrolled", "0", "--pods-default-scheduler", "0",
                          "--pods-in-statefulsets", "1", "--seed", "9", "--pod-start-delay", "200ms",
                          "--pod-termination-delay", "4s", "--pod-recreate-delay", "100ms"});
  auto truth = pod_ground_truth(s.sim(), "portworx");
  auto verdicts = expected_verdicts(truth);
  BOOST_REQUIRE(std::count_if(verdicts.begin(), verdicts.end(), [](auto& v) { return v.second == "eligible"; }) >= 1);
  std::map<std::string, pod_truth> by_key;
  for (auto& t : truth)
    by_key[t.key()] = t;

  s.start_controller();
  s.create_request("off-replica", pod_spec({{"maxParallelEvictions", 1}}));
  std::string first;
  BOOST_REQUIRE(eventually(
    [&] {
      for (auto& e : audit(s.sim()).value("evictions", json::array()))
        if (e.value("code", 0) == 201) {
          first = e.value("namespace", "") + "/" + e.value("pod", "");
          return true;
        }
      return false;
    },
    std::chrono::seconds(60), std::chrono::milliseconds(100)));
  for (auto& n : by_key.at(first).best)
    merge_patch(s.sim(), "/api/v1/nodes/" + n, {{"spec", {{"unschedulable", true}}}});

  auto r = s.wait_final("off-replica", std::chrono::seconds(150));
  auto details = pod_details(r);
  BOOST_REQUIRE(details.count(first) == 1);
  auto reason = details[first].value("reason", "");
  BOOST_TEST(details[first].value("status", "") == "Failed");
  BOOST_TEST(starts_with(reason, "RescheduledOffReplica: "), reason);
  auto landed = reason.substr(std::string("RescheduledOffReplica: ").size());
  BOOST_TEST(!by_key.at(first).best.count(landed));
  // Where the simulator put the replacement (same name, new uid) is what the reason names.
  auto now = get(s.sim(), "/api/v1/namespaces/" + first.substr(0, first.find('/')) + "/pods/"
                            + first.substr(first.find('/') + 1));
  BOOST_TEST(now.value("/spec/nodeName"_json_pointer, std::string()) == landed);
  BOOST_TEST(pod_counter(r, "failed") >= 1);
  bool warned = false;
  for (auto& e : items(s.sim(), "/api/v1/events"))
    warned = warned || e.value("reason", "") == "EvictionFailed";
  BOOST_TEST(warned);
}

BOOST_AUTO_TEST_CASE(a_request_with_both_kinds_runs_both, *boost::unit_test::timeout(240)) {
  scenario s("portworx", {"--nodes", "8", "--vmis", "30", "--misplaced", "0.3", "--pods", "60",
                          "--pods-misplaced", "0.3", "--seed", "13", "--migration-duration", "300ms",
                          "--parallel-migrations-per-cluster", "10", "--pod-start-delay", "200ms",
                          "--pod-termination-delay", "200ms", "--pod-recreate-delay", "100ms"});
  auto vms = migratable_candidates(s.truth());
  auto verdicts = expected_verdicts(pod_ground_truth(s.sim(), "portworx"));
  long long pods_eligible = 0;
  for (auto& [pod, v] : verdicts)
    pods_eligible += v == "eligible";
  BOOST_REQUIRE(!vms.empty() && pods_eligible > 0);

  s.start_controller();
  json spec = scenario::enabled_spec();
  spec.update(pod_spec());
  s.create_request("both", spec);
  auto r = s.wait_final("both", std::chrono::seconds(180));
  BOOST_TEST(counter(r, "successful") == (long long)vms.size(), r.dump());
  BOOST_TEST(counter(r, "failed") == 0);
  BOOST_TEST(pod_counter(r, "successful") == pods_eligible);
  BOOST_TEST(pod_counter(r, "failed") == 0);
  BOOST_TEST(pod_counter(r, "skipped") == (long long)verdicts.size() - pods_eligible);
  // The VMs moved by VMIMs, the pods by evictions, nothing of one kind by the other: a
  // virt-launcher pod is never evicted.
  for (auto& e : audit(s.sim()).value("evictions", json::array()))
    BOOST_TEST(e.value("pod", "").rfind("virt-launcher-", 0) != 0u, e.dump());
  BOOST_TEST(s.schedopt_vmims().size() == vms.size());
  // Successful only if both kinds are; skipped pods make the pod kind PartialSuccess.
  bool pods_clean = pod_counter(r, "skipped") == 0;
  BOOST_TEST(status_of_request(r) == (pods_clean ? "Successful" : "PartialSuccess"), r.dump());
  if (!pods_clean)
    BOOST_TEST(starts_with(reason_of_request(r), "podHyperconvergence: "), reason_of_request(r));
}

BOOST_AUTO_TEST_CASE(plan_shows_each_pods_verdict_and_changes_nothing, *boost::unit_test::timeout(120)) {
  scenario s("portworx", {"--nodes", "6", "--vmis", "4", "--pods", "60", "--pods-misplaced", "0.3", "--seed", "4"});
  auto verdicts = expected_verdicts(pod_ground_truth(s.sim(), "portworx"));
  BOOST_REQUIRE(!verdicts.empty());
  child_process plan(s.client_args("plan", {"--kind", "podHyperconvergence", "-o", "json"}));
  int code = plan.wait_exit(std::chrono::seconds(60));
  BOOST_REQUIRE_MESSAGE(code == 0, "schedopt plan exited " + std::to_string(code) + ": " + plan.log_tail());
  auto report = json::parse(plan.out(), nullptr, false);
  BOOST_REQUIRE_MESSAGE(report.is_array(), "plan -o json printed: " + plan.out());
  std::map<std::string, json> by_pod;
  for (auto& e : report)
    by_pod[e.value("namespace", "") + "/" + e.value("name", "")] = e;
  for (auto& p : report) // virt-launcher pods are the VM kind's: not listed
    BOOST_TEST(p.value("name", "").rfind("virt-launcher-", 0) != 0u);
  for (auto& [pod, v] : verdicts)
    BOOST_TEST_CONTEXT("pod " << pod << " expected " << v) {
      BOOST_REQUIRE(by_pod.count(pod) == 1);
      auto& e = by_pod[pod];
      if (v == "eligible") {
        BOOST_TEST(e.value("disposition", "") == "eligible");
        // Every workload of the scenario has one budget (maxUnavailable 1).
        BOOST_TEST(e.value("budget", "").find(" (allows ") != std::string::npos, e.dump());
        BOOST_TEST(e.value("skipReason", "") == "");
        BOOST_TEST(!e.value("targetNodes", json::array()).empty());
      } else {
        BOOST_TEST(kind_of(e.value("skipReason", "")) == v);
      }
    }
  BOOST_TEST(audit(s.sim()).value("evictions", json::array()).empty());
  child_process unknown(s.client_args("plan", {"--kind", "noSuchKind"}));
  BOOST_TEST(unknown.wait_exit(std::chrono::seconds(30)) == 1);
  BOOST_TEST(unknown.err().find("no optimization kind noSuchKind") != std::string::npos, unknown.err());
}

BOOST_AUTO_TEST_CASE(explain_agrees_with_the_ground_truth_and_plan_and_writes_nothing,
                     *boost::unit_test::timeout(180)) {
  scenario s("portworx", {"--nodes", "6", "--vmis", "4", "--pods", "60", "--pods-misplaced", "0.3", "--seed", "4"});
  auto truth = pod_ground_truth(s.sim(), "portworx");
  auto verdicts = expected_verdicts(truth);
  std::string eligible, skipped;
  for (auto& [pod, v] : verdicts)
    (v == "eligible" ? eligible : skipped) = pod;
  BOOST_REQUIRE_MESSAGE(!eligible.empty() && !skipped.empty(),
                        "the scenario needs an eligible and a skipped pod");
  auto writes_before = schedopt_writes(audit(s.sim()));
  auto plan = run_cli(s, "plan", {"--kind", "podHyperconvergence", "-o", "json"});
  BOOST_REQUIRE_MESSAGE(plan.code == 0, "plan exited " << plan.code << ": " << plan.err);
  std::map<std::string, json> planned;
  for (auto& e : json::parse(plan.out))
    planned[e.value("namespace", "") + "/" + e.value("name", "")] = e;
  for (const auto& key : {eligible, skipped}) {
    const pod_truth* t = nullptr;
    for (auto& x : truth)
      if (x.key() == key)
        t = &x;
    BOOST_REQUIRE(t);
    BOOST_TEST_CONTEXT("pod " << key << " expected " << verdicts[key]) {
      auto r = run_cli(s, "explain", {"--kind", "podHyperconvergence", key, "-o", "json"});
      BOOST_REQUIRE_MESSAGE(r.code == 0, "explain exited " << r.code << ": " << r.err);
      auto ex = json::parse(r.out, nullptr, false);
      BOOST_REQUIRE_MESSAGE(ex.is_object() && ex.value("kind", "") == "PodExplanation", r.out);
      BOOST_TEST(ex.value("node", "") == t->node);
      BOOST_TEST(ex.value("owner", json::object()).value("kind", "") == t->owner_kind);
      BOOST_TEST(ex.value("verdict", "") == (t->node_score > 0 ? "semi" : "non"));
      auto best = ex["bestNodes"].get<std::vector<std::string>>();
      BOOST_TEST((std::set<std::string>(best.begin(), best.end()) == t->best));
      // Each claim's replica nodes are the driver's, as the simulator's SDK holds them.
      std::set<std::string> replica_union, truth_union;
      for (auto& v : ex["volumes"])
        if (v.value("driverOwned", false))
          for (auto& n : v["replicaNodes"])
            replica_union.insert(n.get<std::string>());
      for (auto& set : t->replicas)
        truth_union.insert(set.begin(), set.end());
      BOOST_TEST(replica_union == truth_union);
      // The decision is the evaluation's: the ground truth's and plan's.
      const auto& p = planned.at(key);
      BOOST_TEST(ex.value("disposition", "") == p.value("disposition", ""));
      BOOST_TEST(ex.value("reason", "") == p.value("skipReason", ""));
      BOOST_TEST(ex.value("budget", "") == p.value("budget", ""));
      BOOST_TEST(ex["targetNodes"] == p["targetNodes"]);
      if (verdicts[key] == "eligible") {
        BOOST_TEST(ex.value("disposition", "") == "eligible");
        BOOST_TEST(ex["perRunCap"].value("position", 0) > 0);
        for (auto& n : ex["nodes"])
          if (n.value("target", false)) {
            BOOST_TEST(t->schedulable_best.count(n.value("name", "")) == 1u, n.dump());
            BOOST_TEST(n.value("allowed", false), n.dump());
          }
      } else {
        BOOST_TEST(kind_of(ex.value("reason", "")) == verdicts[key]);
        BOOST_TEST(ex["perRunCap"].value("position", -1) == 0);
      }
    }
  }
  auto all = run_cli(s, "explain", {"--kind", "podHyperconvergence", "--all", "-o", "json"});
  BOOST_REQUIRE_MESSAGE(all.code == 0, "explain --all exited " << all.code << ": " << all.err);
  std::set<std::string> listed, misplaced;
  auto list = json::parse(all.out, nullptr, false);
  BOOST_REQUIRE_MESSAGE(list.value("kind", "") == "List", all.out);
  for (auto& item : list["items"])
    listed.insert(item.value("namespace", "") + "/" + item.value("name", ""));
  for (auto& [pod, v] : verdicts)
    misplaced.insert(pod);
  for (auto& pod : misplaced)
    BOOST_TEST(listed.count(pod) == 1u, pod);
  auto a = audit(s.sim());
  BOOST_TEST(a.value("evictions", json::array()).empty());
  BOOST_TEST(schedopt_writes(a) == writes_before);
}

BOOST_AUTO_TEST_CASE(explaining_an_unknown_pod_exits_1_with_one_line) {
  scenario s("portworx", {"--nodes", "3", "--vmis", "2", "--pods", "6", "--seed", "1"});
  auto r = run_cli(s, "explain", {"--kind", "podHyperconvergence", "default/no-such-pod"});
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.out.empty(), r.out);
  BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err);
  BOOST_TEST(r.err.find("schedopt explain: pod \"default/no-such-pod\" not found") != std::string::npos,
             r.err);
  auto unknown = run_cli(s, "explain", {"--kind", "noSuchKind", "--all"});
  BOOST_TEST(unknown.code == 1);
  BOOST_TEST(unknown.err.find("no optimization kind noSuchKind (known: vmHyperconvergence, "
                              "podHyperconvergence)") != std::string::npos, unknown.err);
}

BOOST_AUTO_TEST_SUITE_END()
