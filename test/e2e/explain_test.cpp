// `schedopt explain` (docs/cli.md) end to end: the real binary against the simulator with
// placement constraints, judged by the simulator's own objects (the Portworx SDK's
// replica sets, node taints and labels, a VMIM created behind schedopt's back), plus
// its exit codes for an unknown VMI and bad arguments.
#include <boost/test/unit_test.hpp>

#include "e2e/e2e_fixture.hpp"
#include "e2e/placement_facts.hpp"

using namespace schedopt::e2e;

namespace {

const json& rule(const json& node, const std::string& name) {
  for (auto& r : node["rules"])
    if (r.value("rule", "") == name)
      return r;
  BOOST_FAIL("no rule " << name << " in " << node.dump());
  return node;
}

struct explain_run {
  int code = -1;
  std::string out;
  std::string err;
};

explain_run explain(const scenario& s, const std::vector<std::string>& args) {
  child_process p(s.client_args("explain", args));
  explain_run r;
  r.code = p.wait_exit(std::chrono::seconds(60));
  r.out = p.out();
  r.err = p.err();
  return r;
}

std::size_t lines_in(const std::string& text) {
  std::size_t n = 0;
  for (char c : text)
    n += c == '\n';
  return n;
}

} // namespace

BOOST_AUTO_TEST_SUITE(explain_command)

BOOST_AUTO_TEST_CASE(every_misplaced_vmi_is_explained_as_the_cluster_bears_out) {
  scenario s("portworx", {"--nodes", "6", "--vmis", "30", "--misplaced", "0.4", "--seed", "5",
                          "--constrained", "0.3", "--tainted-nodes", "2", "--full-nodes", "1",
                          "--migration-duration", "120s"});
  auto truth = s.truth();
  std::map<std::string, json> vmis, nodes, pvcs, pvs;
  for (auto& v : items(s.sim(), vmis_path))
    vmis[v["metadata"].value("namespace", "") + "/" + v["metadata"].value("name", "")] = v;
  for (auto& n : items(s.sim(), "/api/v1/nodes"))
    nodes[n["metadata"].value("name", "")] = n;
  for (auto& c : items(s.sim(), "/api/v1/persistentvolumeclaims"))
    pvcs[c["metadata"].value("namespace", "") + "/" + c["metadata"].value("name", "")] = c;
  for (auto& v : items(s.sim(), "/api/v1/persistentvolumes"))
    pvs[v["metadata"].value("name", "")] = v;

  auto all = explain(s, {"--all", "-o", "json"});
  BOOST_REQUIRE_MESSAGE(all.code == 0, "explain --all exited " << all.code << ": " << all.err);
  auto list = json::parse(all.out, nullptr, false);
  BOOST_REQUIRE_MESSAGE(list.is_object() && list.value("kind", "") == "List", all.out);
  std::set<std::string> misplaced, listed;
  for (auto& t : truth)
    if (t.misplaced)
      misplaced.insert(t.key());
  BOOST_REQUIRE(!misplaced.empty());

  std::map<std::string, std::string> px_names;
  int taint_refusals = 0;
  for (auto& item : list["items"]) {
    auto key = item.value("namespace", "") + "/" + item.value("name", "");
    listed.insert(key);
    BOOST_TEST_CONTEXT("vmi " << key) {
      BOOST_REQUIRE(vmis.count(key) == 1);
      const auto& vmi = vmis[key];
      const vmi_truth* t = nullptr;
      for (auto& x : truth)
        if (x.key() == key)
          t = &x;
      BOOST_REQUIRE(t);
      BOOST_TEST(item.value("node", "") == t->node);
      BOOST_TEST(item.value("verdict", "") == (t->node_score > 0 ? "semi" : "non"));
      auto best = item["bestNodes"].get<std::vector<std::string>>();
      BOOST_TEST((std::set<std::string>(best.begin(), best.end()) == t->best));
      // Volumes → PVC → PV → replica nodes, as the SDK gateway reports them.
      BOOST_REQUIRE(!item["volumes"].empty());
      for (auto& v : item["volumes"]) {
        auto claim = v.value("claim", "");
        BOOST_REQUIRE(pvcs.count(t->ns + "/" + claim) == 1);
        auto pv_name = pvcs[t->ns + "/" + claim].value("/spec/volumeName"_json_pointer, std::string());
        BOOST_TEST(v.value("persistentVolume", "") == pv_name);
        BOOST_REQUIRE(pvs.count(pv_name) == 1);
        if (!v.value("driverOwned", false))
          continue;
        auto handle = pvs[pv_name].value("/spec/csi/volumeHandle"_json_pointer, std::string());
        auto want = portworx_replicas(s.sim(), handle, px_names);
        auto got = v["replicaNodes"].get<std::vector<std::string>>();
        BOOST_TEST((std::set<std::string>(got.begin(), got.end()) == want));
      }
      // Every node, rule by rule, against the node and VMI objects.
      BOOST_TEST(item["nodes"].size() == nodes.size());
      for (auto& n : item["nodes"]) {
        auto name = n.value("name", "");
        BOOST_REQUIRE(nodes.count(name) == 1);
        bool tainted = node_tainted(nodes[name]) && !tolerates_dedicated(vmi);
        BOOST_TEST(rule(n, "taints").value("passed", true) == !tainted);
        if (tainted) {
          BOOST_TEST(rule(n, "taints").value("detail", "") == "taint dedicated=vms:NoSchedule not tolerated");
          BOOST_TEST(!n.value("target", true));
          ++taint_refusals;
        }
        BOOST_TEST(rule(n, "nodeSelector").value("passed", false) == selector_matches(vmi, nodes[name]));
        BOOST_TEST(rule(n, "notCurrentNode").value("passed", true) == (name != t->node));
        if (n.value("target", false))
          for (auto& r : n["rules"])
            BOOST_TEST(r.value("passed", false), name << " " << r.dump());
      }
      BOOST_TEST(item["nextRequest"].is_null()); // no request exists yet
      BOOST_TEST(item["migrationsInFlight"].empty());
    }
  }
  BOOST_TEST(listed == misplaced, boost::test_tools::per_element());
  BOOST_TEST(taint_refusals > 0);
}

BOOST_AUTO_TEST_CASE(an_in_flight_vmim_shows_with_its_phase_and_blocks_the_vm) {
  scenario s("portworx", {"--nodes", "4", "--vmis", "12", "--misplaced", "0.5", "--seed", "7",
                          "--migration-duration", "120s"});
  auto truth = s.truth();
  const vmi_truth* pick = nullptr;
  for (auto& t : truth)
    if (t.misplaced && t.live_migratable && !pick)
      pick = &t;
  BOOST_REQUIRE(pick);
  json vmim = {{"apiVersion", "kubevirt.io/v1"},
               {"kind", "VirtualMachineInstanceMigration"},
               {"metadata", {{"generateName", pick->name + "-by-hand-"}}},
               {"spec", {{"vmiName", pick->name}}}};
  auto created = call(s.sim(), "POST", vmims_in(pick->ns), vmim, 201);
  auto name = created["metadata"].value("name", "");
  s.create_request("queued", scenario::enabled_spec({{"coolOffPeriod", "2h"}}));

  auto r = explain(s, {pick->key(), "-o", "json"});
  BOOST_REQUIRE_MESSAGE(r.code == 0, "explain exited " << r.code << ": " << r.err);
  auto phase_after = get(s.sim(), vmims_in(pick->ns) + "/" + name).value("/status/phase"_json_pointer, std::string());
  auto ex = json::parse(r.out, nullptr, false);
  BOOST_REQUIRE_MESSAGE(ex.is_object(), r.out);
  BOOST_REQUIRE(ex["migrationsInFlight"].size() == 1u);
  auto& flight = ex["migrationsInFlight"][0];
  BOOST_TEST(flight.value("name", "") == name);
  BOOST_TEST(!flight.value("schedopt", true));
  // The simulator walks phases; the one explain saw is this one or an earlier one.
  static const std::vector<std::string> order = {"", "Pending", "Scheduling", "Scheduled",
                                                 "PreparingTarget", "TargetReady", "Running"};
  auto seen = std::find(order.begin(), order.end(), flight.value("phase", "?"));
  auto now = std::find(order.begin(), order.end(), phase_after);
  BOOST_TEST((seen != order.end() && now != order.end() && seen <= now),
             flight.dump() << " vs " << phase_after);
  BOOST_TEST(ex.value("disposition", "") == "skipped");
  BOOST_TEST(ex.value("reason", "") == "MigrationInProgress: vmim=" + pick->ns + "/" + name);
  BOOST_TEST(ex["nextRequest"].value("name", "") == "queued");
  BOOST_TEST(ex["coolOff"].value("period", "") == "2h0m0s");

  // The table for people names the same facts.
  auto table = explain(s, {pick->key()});
  BOOST_REQUIRE_MESSAGE(table.code == 0, table.err);
  BOOST_TEST(table.out.find("VMI:") == 0u, table.out);
  BOOST_TEST(table.out.find(name) != std::string::npos, table.out);
  BOOST_TEST(table.out.find("Next request:   queued") != std::string::npos, table.out);
  BOOST_TEST(table.out.find("Nodes:\n  NODE") != std::string::npos, table.out);
  BOOST_TEST(s.schedopt_vmims().size() == 0u); // read-only
}

BOOST_AUTO_TEST_CASE(an_unknown_vmi_exits_1_and_bad_arguments_exit_2) {
  scenario s("portworx", {"--nodes", "3", "--vmis", "3", "--seed", "1"});
  auto missing = explain(s, {"default/no-such-vm"});
  BOOST_TEST(missing.code == 1);
  BOOST_TEST(lines_in(missing.err) == 1u, missing.err);
  BOOST_TEST(missing.err.find("virtualmachineinstance \"default/no-such-vm\" not found")
               != std::string::npos, missing.err);
  BOOST_TEST(missing.out.empty());
  for (auto args : std::vector<std::vector<std::string>>{
         {"explain"}, {"explain", "no-slash"}, {"explain", "a/b", "--all"},
         {"explain", "a/b", "c/d"}, {"explain", "--all", "-o", "yaml"}}) {
    child_process p(args);
    BOOST_TEST(p.wait_exit(std::chrono::seconds(30)) == 2, args.back());
    BOOST_TEST(lines_in(p.err()) == 1u, p.err());
  }
}

BOOST_AUTO_TEST_SUITE_END()
