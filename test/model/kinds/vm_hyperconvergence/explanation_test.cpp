// `schedopt explain`'s model: the chain volume → PVC → PV → replica nodes, node scores,
// every admission rule on every node (on the room the evaluation judged against),
// cool-off, in-flight VMIMs, the per-run cap, the bounded skip explanation, and that
// the explanation agrees with the evaluation it explains.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

#include "model/kinds/vm_hyperconvergence/evaluation_world.hpp"
#include "model/kinds/vm_hyperconvergence/explanation_report.hpp"
#include "model/ownership_labels.hpp"
#include "model/reason.hpp"
#include "model/text_table.hpp"

using namespace schedopt;
using namespace schedopt::test;

namespace {

/// The world plus what explain adds, evaluated and explained in one go.
struct explained_world : world {
  std::vector<virtual_machine_instance_migration> vmims;
  std::optional<next_request> next;
  evaluation_result result;
  std::vector<persistent_volume_claim> pvc_list;
  std::optional<explanation_sources> sources;

  const explainer& explain_all() {
    result = run();
    pvc_list.clear();
    for (auto& [key, c] : pvcs)
      pvc_list.push_back(c);
    sources.emplace(explanation_sources{in, result, vmims, &pvc_list, next});
    why.emplace(*sources);
    return *why;
  }

  vmi_explanation of(const std::string& name) {
    auto ex = explain_all().explain("ns/" + name);
    BOOST_REQUIRE(ex);
    return *ex;
  }

  std::optional<explainer> why;
};

const node_explanation& node_named(const vmi_explanation& ex, const std::string& name) {
  for (const auto& n : ex.nodes)
    if (n.name == name)
      return n;
  BOOST_FAIL("no node " << name);
  return ex.nodes.front();
}

const rule_result& rule_named(const node_explanation& n, const std::string& rule) {
  for (const auto& r : n.rules)
    if (r.rule == rule)
      return r;
  BOOST_FAIL("no rule " << rule << " on " << n.name);
  return n.rules.front();
}

virtual_machine_instance_migration vmim(const std::string& name, const std::string& vmi_name,
                                        const std::string& phase, bool schedopt) {
  virtual_machine_instance_migration m;
  m.metadata.namespace_ = "ns";
  m.metadata.name = name;
  m.vmi_name = vmi_name;
  m.phase = phase;
  if (schedopt)
    m.metadata.labels[labels::managed_by] = labels::managed_by_value;
  return m;
}

} // namespace

BOOST_AUTO_TEST_SUITE(explanation)

BOOST_AUTO_TEST_CASE(volumes_lead_to_their_pvcs_pvs_and_replica_nodes) {
  explained_world w;
  auto& v = w.add("vm", "n3", {"n1", "n2"});
  v.volumes.push_back({"scratch", "", volume_source::other});          // containerDisk-like: no PVC
  v.volumes.push_back({"other-vol", "claim-other", volume_source::claim}); // another driver's PV
  w.pvcs["ns/claim-other"] = pvc("ns", "claim-other", "pv-other");
  w.pvs["pv-other"] = pv("pv-other", "ebs.csi.aws.com");
  auto ex = w.of("vm");
  BOOST_REQUIRE_EQUAL(ex.volumes.size(), 2u);
  BOOST_CHECK_EQUAL(ex.volumes[0].volume, "claim-vm-vol");
  BOOST_CHECK_EQUAL(ex.volumes[0].claim, "claim-vm");
  BOOST_CHECK_EQUAL(ex.volumes[0].persistent_volume, "pv-vm");
  BOOST_CHECK(ex.volumes[0].driver_owned);
  BOOST_CHECK(ex.volumes[0].replica_nodes == (std::vector<std::string>{"n1", "n2"}));
  BOOST_CHECK_EQUAL(ex.volumes[1].persistent_volume, "pv-other");
  BOOST_CHECK(!ex.volumes[1].driver_owned);
  BOOST_CHECK_EQUAL(ex.verdict, "non");
  BOOST_CHECK_EQUAL(ex.current_score, 0);
  BOOST_CHECK_EQUAL(ex.best_score, 1);
  BOOST_REQUIRE_EQUAL(ex.nodes.size(), 3u);
  BOOST_CHECK_EQUAL(ex.nodes[0].name, "n1"); // score 1 first, then by name
  BOOST_CHECK_EQUAL(ex.nodes[0].score, 1);
  BOOST_CHECK_EQUAL(ex.nodes[2].name, "n3");
  BOOST_CHECK_EQUAL(ex.nodes[2].score, 0);
  BOOST_CHECK(ex.nodes[2].current);
  BOOST_CHECK_EQUAL(ex.nodes[2].result, "current node");
}

BOOST_AUTO_TEST_CASE(a_missing_pvc_is_named_and_the_evaluation_error_kept) {
  explained_world w;
  w.add("vm", "n3", {"n1"});
  w.pvcs.erase("ns/claim-vm");
  auto ex = w.of("vm");
  BOOST_CHECK_EQUAL(ex.verdict, "error");
  BOOST_CHECK_EQUAL(ex.evaluation_error, "persistentvolumeclaims \"claim-vm\" not found");
  BOOST_REQUIRE_EQUAL(ex.volumes.size(), 1u);
  BOOST_CHECK_EQUAL(ex.volumes[0].problem, "PVC not found");
  BOOST_CHECK(ex.reason.rfind("EvaluationError: ", 0) == 0);
}

// Every rule is judged on its own: a node that fails two rules shows both, and its
// result names the one the evaluation's NoTargetNode detail gives.
BOOST_AUTO_TEST_CASE(each_rule_is_reported_on_every_node) {
  explained_world w;
  auto& v = w.add("vm", "n3", {"n1", "n2"});
  edit_constraints(v).node_selector["disk"] = "ssd";
  w.in.nodes[0].ready = false;
  w.in.nodes[0].taints.push_back({"dedicated", "db", "NoSchedule"});
  w.in.nodes[1].metadata.labels["disk"] = "ssd";
  auto ex = w.of("vm");
  const auto& n1 = node_named(ex, "n1");
  BOOST_CHECK(!n1.allowed);
  BOOST_CHECK(!n1.target);
  BOOST_CHECK(!rule_named(n1, "ready").passed);
  BOOST_CHECK(rule_named(n1, "schedulable").passed);
  BOOST_CHECK(rule_named(n1, "notCurrentNode").passed);
  BOOST_CHECK_EQUAL(rule_named(n1, "nodeSelector").detail, "nodeSelector disk=ssd not matched");
  BOOST_CHECK_EQUAL(rule_named(n1, "taints").detail, "taint dedicated=db:NoSchedule not tolerated");
  BOOST_CHECK_EQUAL(n1.result, "refused: not Ready");
  const auto& n2 = node_named(ex, "n2");
  BOOST_CHECK(n2.allowed);
  BOOST_CHECK(n2.target);
  BOOST_CHECK_EQUAL(n2.result, "target");
  BOOST_CHECK(ex.target_nodes == std::vector<std::string>{"n2"});
  const auto& n3 = node_named(ex, "n3");
  BOOST_CHECK(!rule_named(n3, "notCurrentNode").passed);
  BOOST_CHECK_EQUAL(n3.rules.size(), admission_rules().size() + 1);
}

// The first failing rule is refusal()'s answer: the table and the decision share it.
BOOST_AUTO_TEST_CASE(refusal_is_the_first_failing_admission_rule) {
  auto v = vmi("ns", "vm", "n9", {});
  edit_constraints(v).node_selector["disk"] = "ssd";
  v.requests.memory_bytes = int64_t{8} << 30;
  auto n = make_node("n1", true, true);
  n.allocatable.memory_bytes = int64_t{4} << 30;
  node_usage used;
  std::vector<std::string> failing;
  for (const auto& rule : admission_rules())
    if (auto why = rule.check(v, n, used, nullptr))
      failing.push_back(*why);
  BOOST_REQUIRE_EQUAL(failing.size(), 3u);
  BOOST_CHECK_EQUAL(failing[0], "cordoned");
  BOOST_CHECK_EQUAL(failing[2], "4Gi memory free, needs 8Gi + 284Mi virt-launcher overhead");
  BOOST_CHECK_EQUAL(*refusal(v, n, used), failing[0]);
  n.unschedulable = false;
  n.metadata.labels["disk"] = "ssd";
  BOOST_CHECK_EQUAL(*refusal(v, n, used), failing[2]);
}

// b is judged after a took its room on n1: b's explanation shows n1's memory with a's
// requests held, as the evaluation saw it.
BOOST_AUTO_TEST_CASE(room_is_shown_as_the_evaluation_judged_it) {
  explained_world w;
  auto gi = int64_t{1} << 30;
  for (auto& n : w.in.nodes)
    n.allocatable.memory_bytes = 16 * gi;
  w.add("a", "n3", {"n1"}).requests.memory_bytes = 10 * gi;
  w.add("b", "n3", {"n1"}).requests.memory_bytes = 10 * gi;
  auto a = w.of("a");
  BOOST_CHECK_EQUAL(a.disposition, "eligible");
  BOOST_CHECK_EQUAL(node_named(a, "n1").used.memory_bytes, 0);
  auto b = w.of("b");
  BOOST_CHECK_EQUAL(b.disposition, "skipped");
  BOOST_CHECK_EQUAL(b.reason, "NoTargetNode: n1: 5.7Gi memory free, needs 10Gi + 288Mi virt-launcher overhead");
  const auto& n1 = node_named(b, "n1");
  BOOST_CHECK_EQUAL(n1.used.memory_bytes, 10 * gi + 288 * (int64_t{1} << 20)); // a's pod
  BOOST_CHECK_EQUAL(rule_named(n1, "memory").detail,
                    "5.7Gi memory free, needs 10Gi + 288Mi virt-launcher overhead");
  BOOST_CHECK_EQUAL(n1.result, "refused: 5.7Gi memory free, needs 10Gi + 288Mi virt-launcher overhead");
}

// For every VMI and node: target in the explanation exactly when the evaluation chose
// it; a node refused by the explanation is never a target.
BOOST_AUTO_TEST_CASE(the_explanation_agrees_with_the_evaluation) {
  explained_world w;
  w.in.nodes.push_back(make_node("n4"));
  w.in.nodes[1].unschedulable = true;
  w.in.nodes[3].taints.push_back({"gpu", "", "NoExecute"});
  const char* names[] = {"n1", "n2", "n3", "n4"};
  for (int i = 0; i < 12; ++i) {
    std::set<std::string> replicas{names[i % 4], names[(i + 1) % 4]};
    w.add("vm" + std::to_string(i), names[(i + 2) % 4], replicas);
  }
  auto& why = w.explain_all();
  for (const auto& ev : w.result.vmis)
    BOOST_TEST_CONTEXT(ev.name) {
      auto ex = why.explain("ns/" + ev.name);
      BOOST_REQUIRE(ex);
      BOOST_CHECK_EQUAL(ex->verdict, ev.verdict);
      BOOST_CHECK_EQUAL(ex->disposition, to_string(ev.disp));
      BOOST_CHECK_EQUAL(ex->reason, ev.reason);
      for (const auto& n : ex->nodes) {
        bool chosen = ev.disp != disposition::not_candidate
                      && std::find(ev.target_nodes.begin(), ev.target_nodes.end(), n.name)
                           != ev.target_nodes.end();
        BOOST_CHECK_EQUAL(n.target, chosen);
        if (!n.allowed)
          BOOST_CHECK(!n.target);
      }
    }
}

BOOST_AUTO_TEST_CASE(cool_off_and_in_flight_migrations_are_shown) {
  explained_world w;
  w.add("cooling", "n3", {"n1"});
  w.add("moving", "n3", {"n1"});
  w.in.cool_off_period = 1h;
  w.in.last_migration["ns/cooling"] = at("2026-11-30T11:30:00Z");
  w.vmims = {vmim("moving-abc", "moving", "Scheduling", false),
             vmim("moving-old", "moving", "Failed", true)};
  w.in.in_flight = in_flight_migrations_by_vmi(w.vmims);
  auto cooling = w.of("cooling");
  BOOST_CHECK(cooling.cool_off.cooling_off);
  BOOST_CHECK(*cooling.cool_off.eligible_after == at("2026-11-30T12:30:00Z"));
  BOOST_CHECK_EQUAL(cooling.reason, "CoolingOff: eligible after 2026-11-30T12:30:00Z");
  BOOST_CHECK(cooling.in_flight.empty());
  auto moving = w.of("moving");
  BOOST_CHECK(!moving.cool_off.last_migration);
  BOOST_REQUIRE_EQUAL(moving.in_flight.size(), 1u); // the Failed one is final
  BOOST_CHECK_EQUAL(moving.in_flight[0].name, "moving-abc");
  BOOST_CHECK_EQUAL(moving.in_flight[0].phase, "Scheduling");
  BOOST_CHECK(!moving.in_flight[0].schedopt);
  BOOST_CHECK_EQUAL(moving.reason, "MigrationInProgress: vmim=ns/moving-abc");
  // An hour and a half later the period has passed.
  w.in.now = at("2026-11-30T13:30:00Z");
  auto later = w.of("cooling");
  BOOST_CHECK(!later.cool_off.cooling_off);
  BOOST_CHECK_EQUAL(later.disposition, "eligible");
}

BOOST_AUTO_TEST_CASE(the_per_run_cap_defers_candidates_past_it) {
  explained_world w;
  w.add("a", "n3", {"n1"});
  w.add("b", "n3", {"n2"});
  w.add("c", "n1", {"n1", "n2"}); // hyperconverged (n2 as good): not counted
  w.in.max_non_hyperconverged_per_run = 1;
  w.next = next_request{"so-2", request_stage::pending};
  auto a = w.of("a");
  BOOST_CHECK_EQUAL(a.cap.position, 1);
  BOOST_CHECK(!a.cap.deferred);
  auto b = w.of("b");
  BOOST_CHECK_EQUAL(b.cap.position, 2);
  BOOST_CHECK(b.cap.deferred);
  BOOST_CHECK_EQUAL(b.disposition, "outstanding");
  BOOST_CHECK_EQUAL(b.cap.max_non_hyperconverged_per_run, 1);
  BOOST_REQUIRE(b.next);
  BOOST_CHECK_EQUAL(b.next->name, "so-2");
  auto c = w.of("c");
  BOOST_CHECK_EQUAL(c.cap.position, 0);
  BOOST_CHECK_EQUAL(c.verdict, "hyperconverged");
  BOOST_CHECK(c.target_nodes.empty()); // it stays: no node is offered as its target
}

// plan's TARGETS column and explain's "Target nodes:" come from the same evaluation
// field: a hyperconverged VMI whose replicas sit on other nodes too shows "-" in both.
BOOST_AUTO_TEST_CASE(plan_and_explain_show_the_same_targets) {
  explained_world w;
  w.add("hc", "n1", {"n1", "n2", "n3"});
  w.add("semi", "n3", {"n1", "n2"}).volumes.push_back({"extra-vol", "claim-extra", volume_source::claim});
  w.pvcs["ns/claim-extra"] = pvc("ns", "claim-extra", "pv-extra");
  w.pvs["pv-extra"] = pv("pv-extra");
  w.in.replicas.nodes["pv-extra"] = {"n1", "n3"};
  w.add("non", "n3", {"n1", "n2"});
  auto& why = w.explain_all();
  BOOST_REQUIRE_EQUAL(w.result.vmis.size(), 3u);
  for (const auto& ev : w.result.vmis)
    BOOST_TEST_CONTEXT(ev.name) {
      auto ex = why.explain("ns/" + ev.name);
      BOOST_REQUIRE(ex);
      BOOST_CHECK_EQUAL(join(ex->target_nodes), join(ev.target_nodes));
    }
  auto hc = w.of("hc");
  BOOST_CHECK_EQUAL(hc.verdict, "hyperconverged");
  BOOST_CHECK(hc.target_nodes.empty());
  auto text = render_explanation_text(hc);
  auto line = text.find("Target nodes:");
  BOOST_REQUIRE(line != std::string::npos);
  auto value = text.substr(line + 13, text.find('\n', line) - line - 13);
  BOOST_CHECK_EQUAL(value.substr(value.find_first_not_of(' ')), "-");
  for (const auto& n : hc.nodes)
    BOOST_CHECK_MESSAGE(!n.target, n.name << " offered as a target of a VM that stays");
  BOOST_CHECK_EQUAL(w.of("semi").verdict, "semi");
  BOOST_CHECK_EQUAL(join(w.of("semi").target_nodes), "n1");
  BOOST_CHECK_EQUAL(join(w.of("non").target_nodes), "n1,n2");
}

// Each rule has its own column, named after it: a "no" sits under the rule that failed.
BOOST_AUTO_TEST_CASE(the_nodes_table_puts_each_rule_under_its_own_column) {
  explained_world w;
  w.add("vm", "n3", {"n1", "n2"});
  w.in.nodes[0].taints.push_back({"dedicated", "vms", "NoSchedule"});
  auto text = render_explanation_text(w.of("vm"));
  auto table = text.substr(text.find("Nodes:\n"));
  std::istringstream lines(table);
  std::string title, header, row;
  std::getline(lines, title);
  std::getline(lines, header);
  std::vector<std::string> heads, cells;
  for (std::istringstream in(header); in >> title;)
    heads.push_back(title);
  while (std::getline(lines, row) && row.find("n1") == std::string::npos) {
  }
  for (std::istringstream in(row); in >> title;)
    cells.push_back(title);
  BOOST_REQUIRE_EQUAL(heads.size(), admission_rules().size() + 4); // NODE SCORE rules RESULT
  auto column = [&](const std::string& name) {
    return std::find(heads.begin(), heads.end(), name) - heads.begin();
  };
  BOOST_CHECK_EQUAL(heads[column("CPU-MODEL")], "CPU-MODEL");
  BOOST_CHECK_EQUAL(cells.at(column("TAINTS")), "no");
  BOOST_CHECK_EQUAL(cells.at(column("READY")), "ok");
  BOOST_CHECK_EQUAL(cells.at(column("MEMORY")), "ok");
}

BOOST_AUTO_TEST_CASE(unknown_and_not_running_vmis) {
  explained_world w;
  w.add("vm", "n3", {"n1"});
  w.vmis.push_back(vmi("ns", "starting", "", {}, "Scheduling"));
  auto& why = w.explain_all();
  BOOST_CHECK(!why.explain("ns/nope"));
  auto starting = why.explain("ns/starting");
  BOOST_REQUIRE(starting);
  BOOST_CHECK(!starting->considered);
  BOOST_CHECK_EQUAL(starting->verdict, "not-considered");
  BOOST_CHECK(starting->nodes.empty());
  auto missing = render_explain(explain_query{"table", "ns/nope", std::nullopt}, why);
  BOOST_REQUIRE(!missing);
  BOOST_CHECK_EQUAL(missing.err().message, "virtualmachineinstance \"ns/nope\" not found");
}

BOOST_AUTO_TEST_CASE(all_lists_the_misplaced_vmis_only) {
  explained_world w;
  w.add("home", "n1", {"n1"});
  w.add("semi", "n2", {"n1", "n2"}).volumes.push_back({"b-vol", "claim-b", volume_source::claim});
  w.pvcs["ns/claim-b"] = pvc("ns", "claim-b", "pv-b");
  w.pvs["pv-b"] = pv("pv-b");
  w.in.replicas.nodes["pv-b"] = {"n1"};
  w.add("away", "n3", {"n1"});
  auto all = w.explain_all().explain_misplaced();
  BOOST_REQUIRE_EQUAL(all.size(), 2u);
  BOOST_CHECK_EQUAL(all[0].name, "away");
  BOOST_CHECK_EQUAL(all[1].name, "semi");
  BOOST_CHECK_EQUAL(all[1].verdict, "semi");
}

// A skip's status reason keeps the evaluation's reason as its prefix and adds the brief
// explanation after " | ", all within 256 bytes.
BOOST_AUTO_TEST_CASE(skip_reasons_carry_the_bounded_explanation) {
  explained_world w;
  w.add("vm", "n3", {"n1", "n2"});
  w.in.nodes[0].ready = false;
  w.in.nodes[1].unschedulable = true;
  w.in.last_migration["ns/vm"] = at("2026-11-30T09:00:00Z");
  auto skips = w.explain_all().explained_skips();
  BOOST_REQUIRE_EQUAL(skips.size(), 1u);
  BOOST_CHECK_EQUAL(skips[0].reason,
                    "NoTargetNode: n1: not Ready; n2: cordoned | non on n3 (score 0 of 1); "
                    "pv-vm: n1,n2; last migration 2026-11-30T09:00:00Z");
  BOOST_CHECK(w.result.skipped[0].reason == "NoTargetNode: n1: not Ready; n2: cordoned");
  // What the engine records (it gathers no PVCs for a run): the same, from an explainer
  // indexing only the skipped VMIs.
  explanation_sources engine{w.in, w.result, w.vmims, nullptr, std::nullopt};
  auto recorded = explained_skips(engine);
  BOOST_REQUIRE_EQUAL(recorded.size(), 1u);
  BOOST_CHECK_EQUAL(recorded[0].reason, skips[0].reason);

  // Long names: capped on a UTF-8 boundary, the evaluation's reason still first.
  explained_world big;
  std::set<std::string> many;
  for (int i = 0; i < 30; ++i) {
    auto name = "nöde-" + std::to_string(i);
    big.in.nodes.push_back(make_node(name, false));
    many.insert(name);
  }
  big.add("vm", "n3", many);
  auto capped = big.explain_all().explained_skips();
  BOOST_REQUIRE_EQUAL(capped.size(), 1u);
  BOOST_CHECK_LE(capped[0].reason.size(), max_reason_bytes);
  BOOST_CHECK(capped[0].reason.rfind(big.result.skipped[0].reason.substr(0, 200), 0) == 0);
  BOOST_CHECK_EQUAL(truncate_utf8(capped[0].reason, max_reason_bytes), capped[0].reason);
}

BOOST_AUTO_TEST_CASE(json_and_text_carry_the_facts) {
  explained_world w;
  w.add("vm", "n3", {"n1", "n2"});
  w.in.nodes[0].taints.push_back({"dedicated", "vms", "NoSchedule"});
  w.next = next_request{"so-1", request_stage::pending};
  auto ex = w.of("vm");
  auto j = nlohmann::json::parse(render_explanation_json(ex));
  BOOST_CHECK_EQUAL(j["kind"], "VMIExplanation");
  BOOST_CHECK_EQUAL(j["volumes"][0]["persistentVolume"], "pv-vm");
  BOOST_CHECK(j["volumes"][0]["replicaNodes"] == nlohmann::json({"n1", "n2"}));
  BOOST_CHECK_EQUAL(j["nodes"][0]["name"], "n1");
  BOOST_CHECK_EQUAL(j["nodes"][0]["result"], "refused: taint dedicated=vms:NoSchedule not tolerated");
  // After the node's own state (ready, schedulable, evacuation, kubevirt) and the VMI's
  // placement rules: the seventh admission rule, behind the replica check.
  BOOST_CHECK_EQUAL(j["nodes"][0]["rules"][8]["rule"], "taints");
  BOOST_CHECK_EQUAL(j["nodes"][0]["rules"][8]["passed"], false);
  BOOST_CHECK_EQUAL(j["nextRequest"]["name"], "so-1");
  BOOST_CHECK(j["coolOff"]["lastMigration"].is_null());
  auto text = render_explanation_text(ex);
  BOOST_CHECK(text.find("Next request:   so-1 (Pending)") != std::string::npos);
  BOOST_CHECK(text.find("refused: taint dedicated=vms:NoSchedule not tolerated")
              != std::string::npos);
  BOOST_CHECK(text.find("pv-vm") != std::string::npos);
  auto list = nlohmann::json::parse(render_explanations_json({ex, ex}));
  BOOST_CHECK_EQUAL(list["kind"], "List");
  BOOST_CHECK_EQUAL(list["items"].size(), 2u);
  w.next.reset();
  auto table = render_explanations_table({w.of("vm")});
  BOOST_CHECK(table.rfind("NAMESPACE   NAME   NODE   VERDICT   SCORE   DISPOSITION", 0) == 0);
  BOOST_CHECK(table.find("migrates with none pending") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
