// docs/design.md §2 evaluation: volume lookup errors, verdicts, filter order, exact skip reasons,
// the per-run cap and the counts.
#include <boost/test/unit_test.hpp>

#include "model/kinds/vm_hyperconvergence/evaluation_world.hpp"
#include "model/kinds/vm_hyperconvergence/evaluation.hpp"
#include "model/ownership_labels.hpp"

using namespace schedopt;
using namespace schedopt::test;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(evaluation)

BOOST_AUTO_TEST_CASE(only_running_vmis_with_a_node_are_considered) {
  std::vector<virtual_machine_instance> vmis = {
    vmi("ns", "running", "n1", {}), vmi("ns", "pending", "", {}, "Pending"),
    vmi("ns", "scheduled-no-node", "", {}), vmi("ns", "succeeded", "n1", {}, "Succeeded")};
  auto shared = share_all(vmis);
  auto vols = driver_volumes_of(shared, {}, {}, owned_by_px);
  BOOST_REQUIRE_EQUAL(vols.size(), 1u);
  BOOST_CHECK_EQUAL(vols[0].name, "running");
  BOOST_CHECK(is_considered(vmis[0]));
  BOOST_CHECK(!is_considered(vmis[1]));
  BOOST_CHECK(!is_considered(vmis[2]));
}

BOOST_AUTO_TEST_CASE(volume_lookup_errors_read_like_kubernetes) {
  std::vector<virtual_machine_instance> vmis = {
    vmi("ns", "no-pvc", "n1", {"foo"}), vmi("ns", "no-pv", "n1", {"bar"}),
    vmi("ns", "unbound", "n1", {"baz"})};
  std::map<std::string, persistent_volume_claim> pvcs = {
    {"ns/bar", pvc("ns", "bar", "pvc-x")}, {"ns/baz", pvc("ns", "baz", "")}};
  auto shared = share_all(vmis);
  auto vols = driver_volumes_of(shared, index_of(pvcs), {}, owned_by_px);
  BOOST_REQUIRE_EQUAL(vols.size(), 3u);
  // Sorted by name: no-pv, no-pvc, unbound.
  BOOST_CHECK_EQUAL(vols[0].error, "persistentvolumes \"pvc-x\" not found");
  BOOST_CHECK_EQUAL(vols[1].error, "persistentvolumeclaims \"foo\" not found");
  BOOST_CHECK_EQUAL(vols[2].error, "persistentvolumeclaims \"baz\" is not bound to a volume");
  for (const auto& v : vols)
    BOOST_CHECK(v.pvs.empty());
}

BOOST_AUTO_TEST_CASE(pvc_in_another_namespace_does_not_count) {
  std::vector<virtual_machine_instance> vmis = {vmi("a", "v", "n1", {"disk"})};
  std::map<std::string, persistent_volume_claim> pvcs = {{"b/disk", pvc("b", "disk", "pv1")}};
  std::map<std::string, persistent_volume> pvs = {{"pv1", pv("pv1")}};
  auto shared = share_all(vmis);
  auto vols = driver_volumes_of(shared, index_of(pvcs), index_of(pvs), owned_by_px);
  BOOST_CHECK_EQUAL(vols.at(0).error, "persistentvolumeclaims \"disk\" not found");
}

BOOST_AUTO_TEST_CASE(data_volumes_resolve_and_foreign_pvs_are_ignored) {
  auto v = vmi("ns", "v", "n1", {"a", "other"});
  v.volumes.push_back({"dv", "dv-disk", volume_source::data_volume});
  v.volumes.push_back({"cloudinit", "", volume_source::other});
  v.volumes.push_back({"again", "a", volume_source::claim}); // same claim twice: one PV
  std::map<std::string, persistent_volume_claim> pvcs = {
    {"ns/a", pvc("ns", "a", "pv-a")},
    {"ns/other", pvc("ns", "other", "pv-other")},
    {"ns/dv-disk", pvc("ns", "dv-disk", "pv-dv")}};
  std::map<std::string, persistent_volume> pvs = {
    {"pv-a", pv("pv-a")}, {"pv-other", pv("pv-other", "ebs.csi.aws.com")}, {"pv-dv", pv("pv-dv")}};
  auto shared = share_all(std::vector<virtual_machine_instance>{v});
  auto vols = driver_volumes_of(shared, index_of(pvcs), index_of(pvs), owned_by_px);
  BOOST_REQUIRE_EQUAL(vols.size(), 1u);
  BOOST_CHECK(vols[0].error.empty());
  std::vector<std::string> names;
  for (const auto& pv : vols[0].pvs)
    names.push_back(pv->metadata.name);
  BOOST_CHECK((names == std::vector<std::string>{"pv-a", "pv-dv"}));
}

BOOST_AUTO_TEST_CASE(verdicts_and_targets) {
  world w;
  w.add("hc", "n1", {"n1", "n2"});
  w.add("non", "n3", {"n1", "n2"});
  w.in.nodes[1] = make_node("n2", true, true); // n2 cordoned
  auto r = w.run();
  const auto& hc = w.find(r, "hc");
  BOOST_CHECK_EQUAL(hc.verdict, "hyperconverged");
  BOOST_CHECK(hc.disp == disposition::not_candidate);
  const auto& non = w.find(r, "non");
  BOOST_CHECK_EQUAL(non.verdict, "non");
  BOOST_CHECK((non.best_nodes == std::vector<std::string>{"n1", "n2"}));
  BOOST_CHECK((non.target_nodes == std::vector<std::string>{"n1"}));
  BOOST_CHECK(non.disp == disposition::eligible);
  BOOST_REQUIRE_EQUAL(r.eligible.size(), 1u);
  BOOST_CHECK_EQUAL(r.eligible[0].name, "non");
  BOOST_CHECK_EQUAL(r.eligible[0].node, "n3");
  BOOST_CHECK_EQUAL(r.counts.hyperconverged, 1);
  BOOST_CHECK_EQUAL(r.counts.non, 1);
}

// A controller run lists only the VMIs something happens to; its counts, candidates and
// skips are those of the full evaluation.
BOOST_AUTO_TEST_CASE(without_every_vmi_only_candidates_and_skips_are_listed) {
  world w;
  w.add("hc", "n1", {"n1", "n2"});
  w.add("non", "n3", {"n1", "n2"});
  w.add("stuck", "n3", {"n1", "n2"}).conditions.push_back(
    {"LiveMigratable", "False", "DisksNotLiveMigratable", "no", ""});
  auto full = w.run();
  w.in.every_vmi = false;
  auto lean = w.run();
  BOOST_CHECK_EQUAL(full.vmis.size(), 3u);
  std::vector<std::string> listed;
  for (const auto& ev : lean.vmis)
    listed.push_back(ev.name);
  BOOST_CHECK((listed == std::vector<std::string>{"non", "stuck"}));
  BOOST_CHECK_EQUAL(lean.counts.considered, full.counts.considered);
  BOOST_CHECK_EQUAL(lean.counts.hyperconverged, 1);
  BOOST_CHECK_EQUAL(lean.counts.skipped, full.counts.skipped);
  BOOST_REQUIRE_EQUAL(lean.eligible.size(), 1u);
  BOOST_CHECK_EQUAL(lean.eligible[0].name, "non");
  BOOST_REQUIRE_EQUAL(lean.skipped.size(), 1u);
  BOOST_CHECK_EQUAL(lean.skipped[0].name, "stuck");
}

// The lean run counts a VMI on a best node without scoring it the full way: over ties,
// several volumes, semi and non placements and a volume without replicas, both runs
// count the same.
BOOST_AUTO_TEST_CASE(without_every_vmi_the_counts_are_the_full_evaluations) {
  world w;
  w.add("hc", "n1", {"n1", "n2"});
  w.add("tie", "n2", {"n1", "n2", "n3"});
  w.add("non", "n3", {"n1", "n2"});
  w.add("nowhere", "n1", {});
  auto add_second = [&](const std::string& name, const std::string& node,
                        std::set<std::string> first, std::set<std::string> second) {
    auto& v = w.add(name, node, first);
    v.volumes.push_back({"second", short_name("claim-" + name + "-2"), volume_source::claim});
    w.pvcs["ns/claim-" + name + "-2"] = pvc("ns", "claim-" + name + "-2", "pv-" + name + "-2");
    w.pvs["pv-" + name + "-2"] = pv("pv-" + name + "-2");
    w.in.replicas.nodes["pv-" + name + "-2"] = replica_nodes(second.begin(), second.end());
  };
  add_second("semi", "n1", {"n1", "n2"}, {"n2", "n3"});   // n2 holds 2, n1 1
  add_second("split", "n1", {"n1"}, {"n2"});              // n1 and n2 hold 1 each
  add_second("both", "n3", {"n1", "n3"}, {"n3"});         // n3 holds both
  auto full = w.run();
  w.in.every_vmi = false;
  auto lean = w.run();
  BOOST_CHECK_EQUAL(lean.counts.considered, full.counts.considered);
  BOOST_CHECK_EQUAL(lean.counts.hyperconverged, full.counts.hyperconverged);
  BOOST_CHECK_EQUAL(lean.counts.semi, full.counts.semi);
  BOOST_CHECK_EQUAL(lean.counts.non, full.counts.non);
  BOOST_CHECK_EQUAL(lean.counts.eligible, full.counts.eligible);
  BOOST_CHECK_EQUAL(full.counts.hyperconverged, 5); // hc, tie, nowhere, split, both
  BOOST_CHECK_EQUAL(full.counts.semi, 1);
  BOOST_CHECK_EQUAL(full.counts.non, 1);
  BOOST_REQUIRE_EQUAL(lean.eligible.size(), full.eligible.size());
  for (std::size_t i = 0; i < lean.eligible.size(); ++i)
    BOOST_CHECK_EQUAL(lean.eligible[i].name, full.eligible[i].name);
}

BOOST_AUTO_TEST_CASE(semi_hyperconverged_is_a_candidate) {
  world w;
  // Two volumes: pv-semi on n1,n2 and a second on n2,n3. n2 scores 2, n1 scores 1.
  auto& v = w.add("semi", "n1", {"n1", "n2"});
  v.volumes.push_back({"second", "claim-second", volume_source::claim});
  w.pvcs["ns/claim-second"] = pvc("ns", "claim-second", "pv-second");
  w.pvs["pv-second"] = pv("pv-second");
  w.in.replicas.nodes["pv-second"] = {"n2", "n3"};
  auto r = w.run();
  const auto& e = w.find(r, "semi");
  BOOST_CHECK_EQUAL(e.verdict, "semi");
  BOOST_CHECK((e.target_nodes == std::vector<std::string>{"n2"}));
  BOOST_CHECK(e.disp == disposition::eligible);
  BOOST_CHECK_EQUAL(r.counts.semi, 1);
}

BOOST_AUTO_TEST_CASE(vmi_without_driver_volume_is_no_candidate) {
  world w;
  w.vmis.push_back(vmi("ns", "ephemeral", "n1", {}));
  auto r = w.run();
  BOOST_CHECK_EQUAL(w.find(r, "ephemeral").verdict, "none");
  BOOST_CHECK_EQUAL(r.counts.no_driver_volumes, 1);
  BOOST_CHECK(r.eligible.empty() && r.skipped.empty());
}

// Each row blocks with every filter from `first` on; the reported reason must be the
// first in the order of docs/design.md §2.6.
BOOST_AUTO_TEST_CASE(filters_apply_in_spec_order) {
  enum { not_migratable, in_progress, cooling, no_target, none };
  const std::vector<std::pair<int, std::string>> rows = {
    {not_migratable, "NotLiveMigratable: DisksNotLiveMigratable"},
    {in_progress, "MigrationInProgress: vmim=ns/someone-elses"},
    {cooling, "CoolingOff: eligible after 2026-11-30T12:30:00Z"},
    {no_target, "NoTargetNode: n1: not Ready; n2: cordoned"},
    {none, ""},
  };
  for (const auto& [first, expected] : rows) {
    BOOST_TEST_CONTEXT("first blocking filter " << first) {
      world w;
      auto& v = w.add("vm", "n3", {"n1", "n2"});
      if (first <= not_migratable)
        v.conditions.push_back({"LiveMigratable", "False", "DisksNotLiveMigratable",
                                "cannot migrate VMI: PVC disk is not shared", ""});
      else
        v.conditions.push_back({"LiveMigratable", "True", "", "", ""});
      if (first <= in_progress)
        w.in.in_flight["ns/vm"] = "someone-elses";
      if (first <= cooling) {
        w.in.cool_off_period = 1h;
        w.in.last_migration["ns/vm"] = at("2026-11-30T11:30:00Z");
      }
      if (first <= no_target)
        w.in.nodes = {make_node("n1", false), make_node("n2", true, true), make_node("n3")};
      auto r = w.run();
      const auto& e = w.find(r, "vm");
      BOOST_CHECK_EQUAL(e.reason, expected);
      if (expected.empty()) {
        BOOST_CHECK(e.disp == disposition::eligible);
        BOOST_CHECK(r.skipped.empty());
      } else {
        BOOST_CHECK(e.disp == disposition::skipped);
        BOOST_REQUIRE_EQUAL(r.skipped.size(), 1u);
        BOOST_CHECK_EQUAL(r.skipped[0].name, "vm");
        BOOST_CHECK_EQUAL(r.skipped[0].namespace_, "ns");
        BOOST_CHECK_EQUAL(r.skipped[0].status, detail_status::skipped);
        BOOST_CHECK_EQUAL(r.skipped[0].reason, expected);
        BOOST_CHECK_EQUAL(r.counts.skipped, 1);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(cool_off_boundary_is_eligible) {
  world w;
  w.add("vm", "n3", {"n1"});
  w.in.cool_off_period = 30min;
  w.in.last_migration["ns/vm"] = at("2026-11-30T11:30:00Z"); // exactly 30m ago
  auto r = w.run();
  BOOST_CHECK(w.find(r, "vm").disp == disposition::eligible);
}

BOOST_AUTO_TEST_CASE(filters_do_not_touch_hyperconverged_vmis) {
  world w;
  auto& v = w.add("vm", "n1", {"n1"});
  v.conditions.push_back({"LiveMigratable", "False", "DisksNotLiveMigratable", "", ""});
  w.in.in_flight["ns/vm"] = "m";
  auto r = w.run();
  BOOST_CHECK(w.find(r, "vm").disp == disposition::not_candidate);
  BOOST_CHECK(r.skipped.empty());
}

BOOST_AUTO_TEST_CASE(evaluation_errors_are_skips_with_the_raw_error) {
  world w;
  w.vmis.push_back(vmi("ns", "lost-claim", "n1", {"foo"}));
  w.add("driver-error", "n1", {"n1"});
  w.in.replicas.nodes.erase("pv-driver-error");
  w.in.replicas.errors["pv-driver-error"] = "volume pv-driver-error: Volume not found";
  w.add("unreported", "n1", {"n1"});
  w.in.replicas.nodes.erase("pv-unreported");
  auto r = w.run();
  BOOST_CHECK_EQUAL(w.find(r, "lost-claim").reason,
                    "EvaluationError: persistentvolumeclaims \"foo\" not found");
  BOOST_CHECK_EQUAL(w.find(r, "lost-claim").verdict, "error");
  BOOST_CHECK_EQUAL(w.find(r, "driver-error").reason,
                    "EvaluationError: volume pv-driver-error: Volume not found");
  BOOST_CHECK_EQUAL(w.find(r, "unreported").reason,
                    "EvaluationError: storage driver returned no replica nodes for volume "
                    "\"pv-unreported\"");
  BOOST_CHECK_EQUAL(r.counts.errors, 3);
  BOOST_CHECK_EQUAL(r.counts.skipped, 3);
  BOOST_CHECK_EQUAL(r.skipped.size(), 3u);
}

BOOST_AUTO_TEST_CASE(cap_keeps_namespace_name_order_and_names_the_rest_outstanding) {
  world w;
  w.add("b", "n3", {"n1"}, "ns2");
  w.add("z", "n3", {"n1"}, "ns1");
  w.add("a", "n3", {"n1"}, "ns2");
  w.add("c", "n3", {"n1"}, "ns1");
  auto& blocked = w.add("aa", "n3", {"n1"}, "ns1");
  blocked.conditions.push_back({"LiveMigratable", "False", "HostDisk", "", ""});
  w.in.max_non_hyperconverged_per_run = 2;
  auto r = w.run();
  BOOST_REQUIRE_EQUAL(r.eligible.size(), 2u);
  BOOST_CHECK_EQUAL(r.eligible[0].namespace_ + "/" + r.eligible[0].name, "ns1/c");
  BOOST_CHECK_EQUAL(r.eligible[1].namespace_ + "/" + r.eligible[1].name, "ns1/z");
  BOOST_CHECK((r.outstanding == std::vector<std::string>{"ns2/a", "ns2/b"}));
  BOOST_CHECK_EQUAL(r.counts.eligible, 2);
  BOOST_CHECK_EQUAL(r.counts.outstanding, 2);
  BOOST_CHECK_EQUAL(r.counts.skipped, 1); // a skip is never outstanding
  BOOST_CHECK_EQUAL(r.counts.non, 5);
  BOOST_CHECK_EQUAL(r.counts.considered, 5);
  BOOST_CHECK(w.find(r, "a").disp == disposition::outstanding);
  BOOST_CHECK_EQUAL(w.find(r, "a").reason, "");
}

BOOST_AUTO_TEST_CASE(in_flight_map_ignores_final_migrations) {
  std::vector<virtual_machine_instance_migration> ms(3);
  ms[0].metadata = {};
  ms[0].metadata.namespace_ = "ns";
  ms[0].metadata.name = "m-running";
  ms[0].vmi_name = "a";
  ms[0].phase = "Running";
  ms[1] = ms[0];
  ms[1].metadata.name = "m-done";
  ms[1].vmi_name = "b";
  ms[1].phase = "Succeeded";
  ms[2] = ms[0];
  ms[2].metadata.name = "m-new";
  ms[2].vmi_name = "c";
  ms[2].phase = ""; // just created, no status yet: in flight
  auto m = in_flight_migrations_by_vmi(ms);
  BOOST_CHECK_EQUAL(m.size(), 2u);
  BOOST_CHECK_EQUAL(m.at("ns/a"), "m-running");
  BOOST_CHECK_EQUAL(m.at("ns/c"), "m-new");
  BOOST_CHECK(m.count("ns/b") == 0);
}


// docs/design.md §2.5: a best node the VMI may not run on is no target; the next score level
// above the current node's is used instead, and the skip names every refused best node.
BOOST_AUTO_TEST_CASE(targets_honour_the_vmis_constraints_and_fall_back_a_level) {
  world w;
  w.in.nodes.push_back(make_node("n4"));
  // Two volumes: n1 and n2 hold both (score 2), n3 one (score 1), n4 none (current).
  auto& v = w.add("vm", "n4", {"n1", "n2", "n3"});
  v.volumes.push_back({"b-vol", "claim-b", volume_source::claim});
  w.pvcs["ns/claim-b"] = pvc("ns", "claim-b", "pv-b");
  w.pvs["pv-b"] = pv("pv-b");
  w.in.replicas.nodes["pv-b"] = {"n1", "n2"};
  edit_constraints(v).node_selector["disk"] = "ssd";
  for (auto& n : w.in.nodes)
    if (n.metadata.name != "n1")
      n.metadata.labels["disk"] = "ssd";
  w.in.nodes[1].taints.push_back({"dedicated", "db", "NoSchedule"});
  auto r = w.run();
  const auto& e = w.find(r, "vm");
  BOOST_CHECK(e.disp == disposition::eligible);
  BOOST_CHECK(e.verdict == "non");
  BOOST_CHECK(e.best_nodes == (std::vector<std::string>{"n1", "n2"}));
  BOOST_CHECK(e.target_nodes == std::vector<std::string>{"n3"});
  BOOST_CHECK_EQUAL(e.target_score, 1);
  BOOST_CHECK(e.refusals
              == (std::vector<std::string>{"n1: nodeSelector disk=ssd not matched",
                                           "n2: taint dedicated=db:NoSchedule not tolerated"}));

  // n3 refused as well: nothing above the current node's score is left.
  edit_constraints(w.vmis.back()).tolerations.push_back({"other", "Exists", "", ""});
  w.in.nodes[2].unschedulable = true;
  r = w.run();
  const auto& skipped = w.find(r, "vm");
  BOOST_CHECK(skipped.disp == disposition::skipped);
  BOOST_CHECK_EQUAL(skipped.reason,
                    "NoTargetNode: n1: nodeSelector disk=ssd not matched; "
                    "n2: taint dedicated=db:NoSchedule not tolerated");
}

// The fallback never goes to a level at or below the current node's score.
BOOST_AUTO_TEST_CASE(fallback_stays_above_the_current_nodes_score) {
  world w;
  // Scores: n1 2, n2 1 (current), n3 1.
  auto& v = w.add("vm", "n2", {"n1", "n2", "n3"});
  v.volumes.push_back({"b-vol", "claim-b", volume_source::claim});
  w.pvcs["ns/claim-b"] = pvc("ns", "claim-b", "pv-b");
  w.pvs["pv-b"] = pv("pv-b");
  w.in.replicas.nodes["pv-b"] = {"n1"};
  w.in.nodes[0].ready = false;
  auto r = w.run();
  const auto& e = w.find(r, "vm");
  BOOST_CHECK(e.verdict == "semi");
  BOOST_CHECK(e.target_nodes.empty());
  BOOST_CHECK_EQUAL(e.reason, "NoTargetNode: n1: not Ready");
}

// Room is allocatable minus the requests of everything placed on the node (VMIs that
// are not evaluated this run included) and of schedopt migrations pinned there.
BOOST_AUTO_TEST_CASE(room_counts_what_runs_and_what_is_migrating_there) {
  world w;
  auto gi = int64_t{1} << 30;
  auto& v = w.add("vm", "n3", {"n1", "n2"});
  v.requests.memory_bytes = 8 * gi;
  v.requests.cpu_millis = 2000;
  for (auto& n : w.in.nodes) {
    n.allocatable.memory_bytes = 16 * gi;
    n.allocatable.cpu_millis = 4000;
  }
  auto other = vmi("ns", "resident", "n1", {});
  other.requests.memory_bytes = 14 * gi;
  auto moving = vmi("ns", "moving", "n3", {});
  moving.requests.cpu_millis = 2500;
  virtual_machine_instance_migration m;
  m.metadata.namespace_ = "ns";
  m.metadata.labels[labels::managed_by] = labels::managed_by_value;
  m.vmi_name = "moving";
  m.phase = "Scheduling";
  m.added_node_selector[labels::hostname] = "n2";
  w.in.usage = usage_by_node(share_all(std::vector<virtual_machine_instance>{v, other, moving}), {m});
  auto r = w.run();
  BOOST_CHECK_EQUAL(w.find(r, "vm").reason,
                    "NoTargetNode: n1: 1.7Gi memory free, needs 8Gi + 284Mi virt-launcher "
                    "overhead; n2: 1500m CPU free, needs 2");
  m.phase = "Succeeded"; // final: no longer counted
  w.in.usage = usage_by_node(share_all(std::vector<virtual_machine_instance>{v, other, moving}), {m});
  r = w.run();
  BOOST_CHECK(w.find(r, "vm").target_nodes == std::vector<std::string>{"n2"});
}

// The detail lists every refused best node but the reason stays within 256 bytes,
// cut on a UTF-8 boundary.
BOOST_AUTO_TEST_CASE(no_target_detail_is_capped_on_a_utf8_boundary) {
  world w;
  std::set<std::string> replicas;
  w.in.nodes.clear();
  for (int i = 0; i < 30; ++i) {
    auto name = "nöööö-" + std::to_string(100 + i); // 13 bytes
    replicas.insert(name);
    w.in.nodes.push_back(make_node(name, false));
  }
  w.in.nodes.push_back(make_node("home"));
  w.add("vm", "home", replicas);
  auto r = w.run();
  const auto& reason = w.find(r, "vm").reason;
  BOOST_CHECK(reason.rfind("NoTargetNode: nöööö-100: not Ready; nöööö-101: not Ready", 0) == 0);
  // 14 + 9 entries of 26 bytes = 248; byte 256 falls inside the 4th "ö" of the 10th
  // entry, whose first byte is dropped too.
  BOOST_CHECK_EQUAL(reason.size(), 255u);
  std::string tail = "; nööö";
  BOOST_CHECK_EQUAL(reason.substr(reason.size() - tail.size()), tail);
  BOOST_CHECK_EQUAL(w.find(r, "vm").refusals.size(), 30u);
}


// Candidates of one run do not count on the same room: each eligible one holds its
// pod's requests (4Gi + 276Mi of virt-launcher overhead) on every target it was given,
// so the engine may pick any of them.
BOOST_AUTO_TEST_CASE(eligible_candidates_hold_room_on_their_targets) {
  world w;
  auto gi = int64_t{1} << 30;
  for (const char* name : {"a", "b", "c"})
    w.add(name, "n3", {"n1", "n2"}).requests.memory_bytes = 4 * gi;
  w.in.nodes[0].allocatable.memory_bytes = 9 * gi; // n1: room for two
  w.in.nodes[1].allocatable.memory_bytes = 6 * gi; // n2: room for one
  auto r = w.run();
  BOOST_CHECK(w.find(r, "a").target_nodes == (std::vector<std::string>{"n1", "n2"}));
  BOOST_CHECK(w.find(r, "b").target_nodes == std::vector<std::string>{"n1"});
  BOOST_CHECK_EQUAL(w.find(r, "c").reason,
                    "NoTargetNode: n1: 472Mi memory free, needs 4Gi + 276Mi virt-launcher "
                    "overhead; n2: 1.7Gi memory free, needs 4Gi + 276Mi virt-launcher overhead");
  BOOST_CHECK_EQUAL(r.counts.eligible, 2);
}

// The controller judges in batches and hands each batch's candidates on: batches of one
// VMI must come to what evaluate() decides at once (order, room held, the cap), and
// what is judged so far is only ever appended to.
BOOST_AUTO_TEST_CASE(an_evaluator_in_batches_decides_as_evaluate_does) {
  world w;
  auto gi = int64_t{1} << 30;
  for (const char* name : {"a", "b", "c", "d", "e"})
    w.add(name, "n3", {"n1", "n2"}).requests.memory_bytes = 4 * gi;
  w.add("ok", "n1", {"n1"});
  w.in.nodes[0].allocatable.memory_bytes = 9 * gi; // n1: room for two
  w.in.nodes[1].allocatable.memory_bytes = 6 * gi; // n2: room for one
  w.in.max_non_hyperconverged_per_run = 1;
  w.in.every_vmi = false;
  auto whole = w.run();

  evaluator e{w.in};
  std::vector<std::string> handed; // as the controller hands them on, batch by batch
  std::size_t batches = 0;
  bool more = true;
  while (more) {
    more = e.advance(1);
    ++batches;
    auto& eligible = e.result().eligible;
    BOOST_REQUIRE_GE(eligible.size(), handed.size());
    for (auto i = handed.size(); i < eligible.size(); ++i) {
      BOOST_CHECK_EQUAL(e.eligible_vmi(i).metadata.name, eligible[i].name);
      handed.push_back(eligible[i].name);
    }
  }
  BOOST_CHECK(e.done());
  BOOST_CHECK_EQUAL(batches, 6u); // one VMI each
  BOOST_CHECK(!e.advance(1));
  auto parts = e.take_result();
  BOOST_REQUIRE_EQUAL(whole.eligible.size(), 1u);
  BOOST_CHECK((handed == std::vector<std::string>{"a"}));
  BOOST_CHECK(parts.outstanding == whole.outstanding);
  BOOST_CHECK_EQUAL(parts.skipped.size(), whole.skipped.size());
  for (std::size_t i = 0; i < parts.skipped.size() && i < whole.skipped.size(); ++i)
    BOOST_CHECK_EQUAL(parts.skipped[i].reason, whole.skipped[i].reason);
  BOOST_CHECK_EQUAL(parts.counts.considered, 6);
  BOOST_CHECK_EQUAL(parts.counts.hyperconverged, whole.counts.hyperconverged);
  BOOST_CHECK_EQUAL(parts.counts.outstanding, whole.counts.outstanding);
  BOOST_CHECK_EQUAL(parts.counts.skipped, whole.counts.skipped);
}


// The controller maps each VMI to its volumes as it judges it (after the driver has
// answered) and takes the driver's answer by position: every verdict, reason and count
// is the one step 1 done first, with an answer by name, gives.
BOOST_AUTO_TEST_CASE(volumes_mapped_as_judged_decide_as_step_one_done_first) {
  world w;
  w.add("a-misplaced", "n3", {"n1", "n2"});
  w.add("b-placed", "n1", {"n1"});
  w.add("c-semi", "n2", {"n1", "n2"}, "other");
  w.vmis.push_back(vmi("ns", "d-no-claim", "n1", {"claim-gone"}));
  w.vmis.push_back(vmi("ns", "e-no-pv", "n1", {"claim-e"}));
  w.pvcs["ns/claim-e"] = pvc("ns", "claim-e", "pv-gone");
  w.vmis.push_back(vmi("ns", "f-two", "n3", {"claim-f1", "claim-f2", "claim-nfs"}));
  for (const char* c : {"f1", "f2"}) {
    w.pvcs[std::string("ns/claim-") + c] = pvc("ns", std::string("claim-") + c, std::string("pv-") + c);
    w.pvs[std::string("pv-") + c] = pv(std::string("pv-") + c);
  }
  w.pvcs["ns/claim-nfs"] = pvc("ns", "claim-nfs", "pv-nfs");
  w.pvs["pv-nfs"] = pv("pv-nfs", "nfs.csi.k8s.io");
  w.in.replicas.nodes["pv-f1"] = {"n1", "n2"};
  w.in.replicas.nodes["pv-f2"] = {"n2"};
  w.vmis.push_back(vmi("ns", "g-unanswered", "n1", {"claim-g"}));
  w.pvcs["ns/claim-g"] = pvc("ns", "claim-g", "pv-g");
  w.pvs["pv-g"] = pv("pv-g");
  for (auto [every_vmi, by_position] : {std::pair{true, false}, std::pair{false, false},
                                        std::pair{true, true}, std::pair{false, true}}) {
    BOOST_TEST_CONTEXT("every_vmi " << every_vmi << ", answered by position " << by_position) {
    w.in.every_vmi = every_vmi;
    auto first = w.run();
    auto as_judged = w.run_mapping_as_judged(by_position);
    BOOST_REQUIRE_EQUAL(as_judged.vmis.size(), first.vmis.size());
    for (std::size_t i = 0; i < first.vmis.size(); ++i) {
      const auto& x = first.vmis[i];
      const auto& y = as_judged.vmis[i];
      BOOST_CHECK_EQUAL(y.name, x.name);
      BOOST_CHECK_EQUAL(y.verdict, x.verdict);
      BOOST_CHECK_EQUAL(y.reason, x.reason);
      BOOST_CHECK(y.disp == x.disp);
      BOOST_CHECK(y.target_nodes == x.target_nodes);
    }
    BOOST_CHECK_EQUAL(as_judged.counts.considered, 7);
    BOOST_CHECK_EQUAL(as_judged.counts.errors, first.counts.errors);
    BOOST_CHECK_EQUAL(as_judged.counts.errors, 3); // no PVC, no PV, no replica answer
    BOOST_CHECK_EQUAL(as_judged.counts.eligible, first.counts.eligible);
    BOOST_CHECK_EQUAL(as_judged.counts.hyperconverged, first.counts.hyperconverged);
    BOOST_CHECK_EQUAL(as_judged.counts.semi, first.counts.semi);
    BOOST_CHECK_EQUAL(as_judged.counts.non, first.counts.non);
    }
  }
}
BOOST_AUTO_TEST_SUITE_END()
