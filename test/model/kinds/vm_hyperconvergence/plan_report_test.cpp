// `schedopt plan` output (docs/cli.md): aligned table with the six columns, JSON array of objects.
#include <boost/test/unit_test.hpp>

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/kinds/vm_hyperconvergence/evaluation_world.hpp"
#include "model/kinds/vm_hyperconvergence/plan_report.hpp"

using namespace schedopt;

namespace {

vmi_evaluation row(std::string ns, std::string name, std::string node, std::string verdict,
                   std::vector<std::string> best, std::vector<std::string> targets,
                   disposition disp, std::string reason) {
  vmi_evaluation e;
  e.namespace_ = std::move(ns);
  e.name = std::move(name);
  e.node = std::move(node);
  e.verdict = std::move(verdict);
  e.best_nodes = std::move(best);
  e.target_nodes = std::move(targets);
  e.disp = disp;
  e.reason = std::move(reason);
  return e;
}

evaluation_result sample() {
  evaluation_result r;
  auto a = row("default", "vm-a", "node-1", "hyperconverged", {"node-1"}, {},
               disposition::not_candidate, "");
  auto b = row("team-long-name", "vm-b", "node-3", "non", {"node-1", "node-2"},
               {"node-1", "node-2"}, disposition::eligible, "");
  auto c = row("default", "vm-c", "node-2", "semi", {"node-1"}, {}, disposition::skipped,
               "NoTargetNode: none");
  auto d = row("default", "vm-d", "node-2", "non", {"node-1"}, {"node-1"},
               disposition::outstanding, "");
  r.vmis = {a, b, c, d};
  return r;
}

} // namespace

BOOST_AUTO_TEST_SUITE(plan_report)

BOOST_AUTO_TEST_CASE(table_is_aligned) {
  auto text = render_plan_table(sample());
  const std::string expected =
    "NAMESPACE        NAME   NODE     VERDICT          TARGETS         SKIP REASON\n"
    "default          vm-a   node-1   hyperconverged   -               -\n"
    "team-long-name   vm-b   node-3   non              node-1,node-2   -\n"
    "default          vm-c   node-2   semi             -               NoTargetNode: none\n"
    "default          vm-d   node-2   non              node-1          (outstanding: over "
    "maxNonHyperconvergedPerRun)\n";
  BOOST_CHECK_EQUAL(text, expected);
}

BOOST_AUTO_TEST_CASE(empty_table_has_a_header) {
  BOOST_CHECK_EQUAL(render_plan_table({}),
                    "NAMESPACE   NAME   NODE   VERDICT   TARGETS   SKIP REASON\n");
}

BOOST_AUTO_TEST_CASE(json_array_of_objects) {
  auto j = nlohmann::json::parse(render_plan_json(sample()));
  BOOST_REQUIRE(j.is_array());
  BOOST_REQUIRE_EQUAL(j.size(), 4u);
  BOOST_CHECK_EQUAL(j[1]["namespace"], "team-long-name");
  BOOST_CHECK_EQUAL(j[1]["name"], "vm-b");
  BOOST_CHECK_EQUAL(j[1]["node"], "node-3");
  BOOST_CHECK_EQUAL(j[1]["verdict"], "non");
  BOOST_CHECK_EQUAL(j[1]["disposition"], "eligible");
  BOOST_CHECK_EQUAL(j[1]["targetNodes"].size(), 2u);
  BOOST_CHECK_EQUAL(j[2]["skipReason"], "NoTargetNode: none");
  BOOST_CHECK_EQUAL(j[3]["disposition"], "outstanding");
  BOOST_CHECK_EQUAL(nlohmann::json::parse(render_plan_json({})).size(), 0u);
}

// A hyperconverged VMI stays where it is, so it has no target, even when other nodes hold
// its replicas as well as its own node does: the row says "-", as explain does.
BOOST_AUTO_TEST_CASE(a_hyperconverged_vmi_has_no_targets) {
  schedopt::test::world w;
  w.add("hc", "n1", {"n1", "n2", "n3"});
  auto r = w.run();
  BOOST_REQUIRE_EQUAL(r.vmis.size(), 1u);
  BOOST_CHECK_EQUAL(r.vmis[0].verdict, "hyperconverged");
  BOOST_CHECK(r.vmis[0].target_nodes.empty());
  BOOST_CHECK_EQUAL(render_plan_table(r),
                    "NAMESPACE   NAME   NODE   VERDICT          TARGETS   SKIP REASON\n"
                    "ns          hc     n1     hyperconverged   -         -\n");
  auto j = nlohmann::json::parse(render_plan_json(r));
  BOOST_CHECK(j[0]["targetNodes"].empty());
}

BOOST_AUTO_TEST_SUITE_END()
