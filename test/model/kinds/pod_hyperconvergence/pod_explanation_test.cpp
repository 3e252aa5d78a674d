// `schedopt explain --kind podHyperconvergence` (pod_explanation.hpp, its report): each
// fact read back from the evaluation that decided, so the explanation agrees with it —
// owner, volumes to replica nodes, each node's score and admission, cool-off, budget,
// the per-run cap — and the page, the JSON and the unknown-pod error.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "model/kinds/pod_hyperconvergence/pod_explanation.hpp"
#include "model/kinds/pod_hyperconvergence/pod_explanation_report.hpp"
#include "model/kinds/pod_hyperconvergence/pod_plan_report.hpp"
#include "model/kinds/pod_hyperconvergence/pod_test_world.hpp"

using namespace schedopt;
using namespace schedopt::test::pods;

namespace {

/// A world evaluated once, with everything explain gathers.
struct explained {
  pod_world& w;
  evaluation_result result;
  sorted_objects<persistent_volume_claim> pvcs;
  sorted_objects<persistent_volume> pvs;
  std::map<std::string, std::string> budgets;
  pod_explanation_sources sources;
  pod_explainer why;

  explicit explained(pod_world& world, std::vector<pod_disruption_budget> bs = {})
    : w(world), result(world.run()), pvcs(index_of(world.pvcs)), pvs(index_of(world.pvs)),
      budgets(budgets_by_pod(world.in.pods, bs)),
      sources{world.in, result, &pvcs, &pvs, &budgets}, why(sources) {}

  pod_explanation of(const std::string& key) {
    auto ex = why.explain(key);
    BOOST_REQUIRE_MESSAGE(ex, "no explanation for " + key);
    return *ex;
  }
};

const node_explanation& node_of(const pod_explanation& ex, const std::string& name) {
  for (const auto& n : ex.nodes)
    if (n.name == name)
      return n;
  BOOST_FAIL("no node " + name);
  return ex.nodes.front();
}

const rule_result& rule_of(const node_explanation& n, const std::string& name) {
  for (const auto& r : n.rules)
    if (r.rule == name)
      return r;
  BOOST_FAIL("no rule " + name + " on " + n.name);
  return n.rules.front();
}

const pod_evaluation& evaluation_of(const evaluation_result& r, const std::string& name) {
  for (const auto& p : r.pods)
    if (p.name == name)
      return p;
  BOOST_FAIL("no evaluation for " + name);
  return r.pods.front();
}

pod_disruption_budget budget(const std::string& name, int64_t allowed) {
  pod_disruption_budget b;
  b.metadata.namespace_ = "ns";
  b.metadata.name = name;
  b.selector.present = true;
  b.selector.match_labels = {{"app", "db"}};
  b.disruptions_allowed = allowed;
  return b;
}

} // namespace

BOOST_AUTO_TEST_SUITE(pod_explanation_model)

BOOST_AUTO_TEST_CASE(an_eligible_pod_shows_owner_volumes_nodes_budget_and_cap) {
  pod_world w;
  w.in.nodes[2].unschedulable = true; // n3 holds a replica but is cordoned
  w.add("db-0", "n1", {"n2", "n3"}).metadata.labels = {{"app", "db"}};
  explained e(w, {budget("db", 1)});
  auto ex = e.of("ns/db-0");
  const auto& ev = evaluation_of(e.result, "db-0");
  BOOST_CHECK_EQUAL(ex.verdict, ev.verdict);
  BOOST_CHECK_EQUAL(ex.verdict, "non");
  BOOST_CHECK_EQUAL(ex.disposition, "eligible");
  BOOST_CHECK(ex.reason.empty());
  BOOST_CHECK(ex.considered);
  BOOST_CHECK_EQUAL(ex.phase, "Running");
  BOOST_CHECK_EQUAL(ex.scheduler, "stork");
  BOOST_CHECK(ex.storage_aware_scheduler);
  BOOST_CHECK_EQUAL(ex.owner.kind, "StatefulSet");
  BOOST_CHECK_EQUAL(ex.owner.name, "db");
  BOOST_CHECK(ex.owner.counts);
  BOOST_CHECK_EQUAL(ex.owner.replicas, 3);
  BOOST_REQUIRE_EQUAL(ex.volumes.size(), 1u);
  BOOST_CHECK_EQUAL(ex.volumes[0].claim, "data-db-0");
  BOOST_CHECK_EQUAL(ex.volumes[0].persistent_volume, "pv-db-0");
  BOOST_CHECK(ex.volumes[0].driver_owned);
  BOOST_CHECK(ex.volumes[0].replica_nodes == (std::vector<std::string>{"n2", "n3"}));
  BOOST_CHECK(ex.target_nodes == ev.target_nodes);
  BOOST_CHECK(ex.target_nodes == std::vector<std::string>{"n2"});
  BOOST_CHECK_EQUAL(node_of(ex, "n2").result, "target");
  BOOST_CHECK(node_of(ex, "n2").best);
  BOOST_CHECK_EQUAL(node_of(ex, "n3").result, "refused: cordoned");
  BOOST_CHECK(!rule_of(node_of(ex, "n3"), "schedulable").passed);
  BOOST_CHECK_EQUAL(node_of(ex, "n1").result, "current node");
  BOOST_CHECK_EQUAL(ex.nodes.front().score, 1); // score descending
  BOOST_CHECK_EQUAL(ex.budget, "db (allows 1)");
  BOOST_CHECK_EQUAL(ex.cap.position, 1);
  BOOST_CHECK(!ex.cap.deferred);
  BOOST_CHECK(!ex.cool_off.last_eviction);
}

BOOST_AUTO_TEST_CASE(each_skip_reason_is_the_evaluations_own) {
  pod_world w;
  w.add("bare-0", "n1", {"n2"}, "", "");
  w.add("agent-0", "n1", {"n2"}, "DaemonSet", "agent");
  w.add("db-0", "n1", {"n2"}).scheduler_name = "default-scheduler";
  w.add("q-0", "n1", {"n2"}, "StatefulSet", "q");
  w.stateful_sets.push_back(make_stateful_set("ns", "q", 0));
  explained e(w);
  for (const auto& ev : e.result.pods) {
    auto ex = e.of(pod_key(ev.namespace_, ev.name));
    BOOST_CHECK_EQUAL(ex.reason, ev.reason);
    BOOST_CHECK_EQUAL(ex.disposition, "skipped");
  }
  auto bare = e.of("ns/bare-0");
  BOOST_CHECK(!bare.owner.counts);
  BOOST_CHECK(bare.owner.kind.empty());
  BOOST_CHECK(bare.owner.why_not.find("no controller") == 0);
  auto agent = e.of("ns/agent-0");
  BOOST_CHECK_EQUAL(agent.owner.kind, "DaemonSet");
  BOOST_CHECK(agent.owner.why_not.find("controlled by DaemonSet agent") == 0);
  auto db = e.of("ns/db-0");
  BOOST_CHECK(!db.storage_aware_scheduler);
  BOOST_CHECK(db.owner.counts);
  BOOST_CHECK(db.reason.rfind("SchedulerNotStorageAware: ", 0) == 0);
  auto q = e.of("ns/q-0");
  BOOST_CHECK_EQUAL(q.owner.why_not, "StatefulSet q is scaled to 0");
  BOOST_CHECK_EQUAL(q.cap.position, 0);
}

BOOST_AUTO_TEST_CASE(cool_off_shows_the_record_and_when_it_ends) {
  pod_world w;
  w.add("db-0", "n1", {"n2"});
  w.stateful_sets[0].metadata.annotations[default_pod_cool_off_annotation] = "2026-11-30T11:30:00Z";
  w.in.cool_off_period = std::chrono::hours(1);
  explained e(w);
  auto ex = e.of("ns/db-0");
  BOOST_CHECK_EQUAL(ex.reason, evaluation_of(e.result, "db-0").reason);
  BOOST_CHECK(ex.reason.rfind("CoolingOff: ", 0) == 0);
  BOOST_CHECK(ex.cool_off.cooling_off);
  BOOST_CHECK(!ex.cool_off.this_request);
  BOOST_REQUIRE(ex.cool_off.last_eviction && ex.cool_off.eligible_after);
  BOOST_CHECK_EQUAL(format_rfc3339(*ex.cool_off.last_eviction), "2026-11-30T11:30:00Z");
  BOOST_CHECK_EQUAL(format_rfc3339(*ex.cool_off.eligible_after), "2026-11-30T12:30:00Z");
  BOOST_CHECK(ex.cool_off.period == std::chrono::hours(1));
  // This request's own record holds none of its pods back, and says so.
  auto& a = w.stateful_sets[0].metadata.annotations;
  a[cool_off_request_annotation(default_pod_cool_off_annotation)] = "req-1";
  w.in.request_uid = "req-1";
  explained own(w);
  auto mine = own.of("ns/db-0");
  BOOST_CHECK_EQUAL(mine.disposition, "eligible");
  BOOST_CHECK(mine.cool_off.this_request);
  BOOST_CHECK(!mine.cool_off.cooling_off);
  // A record that does not parse is shown and ignored, as the evaluation ignores it.
  a[default_pod_cool_off_annotation] = "yesterday";
  explained bad(w);
  auto unread = bad.of("ns/db-0");
  BOOST_CHECK(unread.cool_off.record_error.find("yesterday") != std::string::npos);
  BOOST_CHECK_EQUAL(unread.disposition, "eligible");
}

BOOST_AUTO_TEST_CASE(no_target_node_names_each_refusal_on_the_room_the_evaluation_saw) {
  pod_world w;
  w.in.nodes[1].allocatable.memory_bytes = 3LL << 30;
  w.add("db-0", "n1", {"n2"}).requests.memory_bytes = 2LL << 30;
  w.add("db-1", "n1", {"n2"}).requests.memory_bytes = 2LL << 30;
  explained e(w);
  auto first = e.of("ns/db-0");
  BOOST_CHECK_EQUAL(node_of(first, "n2").result, "target");
  BOOST_CHECK_EQUAL(node_of(first, "n2").used.memory_bytes, 0);
  // db-1 is judged after db-0 took room on n2.
  auto second = e.of("ns/db-1");
  BOOST_CHECK_EQUAL(second.reason, "NoTargetNode: n2: 1Gi memory free, needs 2Gi");
  const auto& n2 = node_of(second, "n2");
  BOOST_CHECK_EQUAL(n2.used.memory_bytes, 2LL << 30);
  BOOST_CHECK(!n2.allowed);
  BOOST_CHECK(!rule_of(n2, "memory").passed);
  BOOST_CHECK_EQUAL(n2.result, "refused: 1Gi memory free, needs 2Gi");
  BOOST_CHECK_EQUAL(node_of(second, "n3").result, "score not above the current node's");
}

BOOST_AUTO_TEST_CASE(the_cap_position_and_deferral_follow_the_evaluation) {
  pod_world w;
  w.add("db-0", "n1", {"n2"});
  w.add("db-1", "n1", {"n2"});
  w.add("db-2", "n1", {"n2"});
  w.in.max_per_run = 2;
  explained e(w);
  auto third = e.of("ns/db-2");
  BOOST_CHECK_EQUAL(third.disposition, "outstanding");
  BOOST_CHECK_EQUAL(third.cap.position, 3);
  BOOST_CHECK(third.cap.deferred);
  BOOST_CHECK_EQUAL(third.cap.max_non_hyperconverged_per_run, 2);
  BOOST_CHECK_EQUAL(e.of("ns/db-1").cap.position, 2);
  BOOST_CHECK(!e.of("ns/db-1").cap.deferred);
}

BOOST_AUTO_TEST_CASE(volume_problems_and_pods_not_considered_are_named) {
  pod_world w;
  w.add("db-0", "n1", {"n2"});
  w.pvcs["ns/data-db-0"].volume_name.clear(); // unbound
  w.add("db-1", "n1", {"n2"});
  w.in.replicas.erase("pv-db-1");
  w.in.replica_errors["pv-db-1"] = "volume pv-db-1: sdk unavailable";
  w.add("db-2", "", {"n2"}).phase = "Pending";
  explained e(w);
  auto unbound = e.of("ns/db-0");
  BOOST_CHECK_EQUAL(unbound.verdict, "error");
  BOOST_REQUIRE_EQUAL(unbound.volumes.size(), 1u);
  BOOST_CHECK_EQUAL(unbound.volumes[0].problem, "PVC not bound");
  BOOST_CHECK_EQUAL(unbound.evaluation_error,
                    "persistentvolumeclaims \"data-db-0\" is not bound to a volume");
  auto driver = e.of("ns/db-1");
  BOOST_CHECK_EQUAL(driver.verdict, "error");
  BOOST_CHECK_EQUAL(driver.volumes[0].problem, "volume pv-db-1: sdk unavailable");
  BOOST_CHECK_EQUAL(driver.evaluation_error, "volume pv-db-1: sdk unavailable");
  auto pending = e.of("ns/db-2");
  BOOST_CHECK(!pending.considered);
  BOOST_CHECK_EQUAL(pending.verdict, "not-considered");
  BOOST_CHECK_EQUAL(pending.not_considered_why, "phase Pending");
  BOOST_CHECK(pending.nodes.empty());
  BOOST_CHECK(!e.why.explain("ns/nope"));
}

BOOST_AUTO_TEST_CASE(all_lists_misplaced_and_skipped_pods_only) {
  pod_world w;
  w.add("db-0", "n1", {"n1"});           // hyperconverged
  w.add("db-1", "n1", {"n2"});           // eligible, misplaced
  w.add("tool-0", "n1", {"n2"}, "", ""); // skipped NoController
  w.add("db-2", "", {"n2"}).phase = "Pending";
  explained e(w);
  std::vector<std::string> names;
  for (const auto& ex : e.why.explain_misplaced())
    names.push_back(ex.name);
  BOOST_CHECK(names == (std::vector<std::string>{"db-1", "tool-0"}));
}

BOOST_AUTO_TEST_CASE(renders_a_page_json_a_table_and_refuses_an_unknown_pod) {
  pod_world w;
  w.add("db-0", "n1", {"n2"}).metadata.labels = {{"app", "db"}};
  w.add("tool-0", "n1", {"n2"}, "", "");
  explained e(w, {budget("db", 0)});
  auto page = render_pod_explain("table", "ns/db-0", e.why);
  BOOST_REQUIRE(page);
  BOOST_CHECK(page->find("Pod:") == 0);
  BOOST_CHECK(page->find("StatefulSet/db (replicas 3;") != std::string::npos);
  BOOST_CHECK(page->find("db (allows 0)") != std::string::npos);
  BOOST_CHECK(page->find("Volumes:\n  CLAIM") != std::string::npos);
  BOOST_CHECK(page->find("Nodes:\n  NODE") != std::string::npos);
  auto json = render_pod_explain("json", "ns/db-0", e.why);
  BOOST_REQUIRE(json);
  auto o = nlohmann::json::parse(*json);
  BOOST_CHECK_EQUAL(o["kind"], "PodExplanation");
  BOOST_CHECK_EQUAL(o["disposition"], "eligible");
  BOOST_CHECK_EQUAL(o["owner"]["kind"], "StatefulSet");
  BOOST_CHECK_EQUAL(o["budget"], "db (allows 0)");
  BOOST_CHECK_EQUAL(o["volumes"][0]["replicaNodes"], nlohmann::json::array({"n2"}));
  BOOST_CHECK_EQUAL(o["coolOff"]["lastEviction"], nullptr);
  BOOST_CHECK_EQUAL(o["perRunCap"]["position"], 1);
  auto all = render_pod_explain("json", "", e.why);
  BOOST_REQUIRE(all);
  auto list = nlohmann::json::parse(*all);
  BOOST_CHECK_EQUAL(list["kind"], "List");
  BOOST_CHECK_EQUAL(list["items"].size(), 2u);
  auto table = render_pod_explain("table", "", e.why);
  BOOST_REQUIRE(table);
  BOOST_CHECK(table->find("BUDGET") != std::string::npos);
  BOOST_CHECK(table->find("NoController") != std::string::npos);
  auto missing = render_pod_explain("json", "ns/nope", e.why);
  BOOST_REQUIRE(!missing);
  BOOST_CHECK_EQUAL(missing.err().message, "pod \"ns/nope\" not found");
}

BOOST_AUTO_TEST_SUITE_END()
