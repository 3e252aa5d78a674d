// `schedopt plan --kind podHyperconvergence` rows (pod_plan_report.hpp): each considered
// pod with its owner, targets, the budgets covering it and its skip reason.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "model/kinds/pod_hyperconvergence/pod_plan_report.hpp"
#include "model/kinds/pod_hyperconvergence/pod_test_world.hpp"

using namespace schedopt;
using namespace schedopt::test::pods;

namespace {

pod_disruption_budget budget(const std::string& name, const std::string& app, int64_t allowed) {
  pod_disruption_budget b;
  b.metadata.namespace_ = "ns";
  b.metadata.name = name;
  b.selector.present = true;
  b.selector.match_labels = {{"app", app}};
  b.disruptions_allowed = allowed;
  return b;
}

} // namespace

BOOST_AUTO_TEST_SUITE(pod_plan_report)

BOOST_AUTO_TEST_CASE(rows_name_the_owner_targets_budgets_and_skip) {
  pod_world w;
  w.add("db-0", "n1", {"n2"}).metadata.labels = {{"app", "db"}};
  w.add("tool-0", "n1", {"n2"}, "", "").metadata.labels = {{"app", "tool"}};
  w.add("db-1", "n2", {"n2"}).metadata.labels = {{"app", "db"}};
  auto result = w.run();
  auto budgets = budgets_by_pod(w.in.pods, {budget("db", "db", 1), budget("tool", "tool", 0),
                                            budget("tool-quorum", "tool", 1)});
  BOOST_CHECK_EQUAL(budgets.at("ns/db-0"), "db (allows 1)");
  BOOST_CHECK_EQUAL(budgets.at("ns/tool-0"), "tool, tool-quorum (more than one: evictions answer 500)");
  auto table = render_pod_plan_table(result, budgets);
  BOOST_CHECK(table.find("BUDGET") != std::string::npos);
  BOOST_CHECK(table.find("StatefulSet/db") != std::string::npos);
  BOOST_CHECK(table.find("NoController") != std::string::npos);
  auto rows = nlohmann::json::parse(render_pod_plan_json(result, budgets));
  BOOST_REQUIRE_EQUAL(rows.size(), 3u);
  for (auto& row : rows)
    if (row["name"] == "db-0") {
      BOOST_CHECK_EQUAL(row["disposition"], "eligible");
      BOOST_CHECK_EQUAL(row["budget"], "db (allows 1)");
      BOOST_CHECK_EQUAL(row["targetNodes"], nlohmann::json::array({"n2"}));
      BOOST_CHECK_EQUAL(row["owner"], "StatefulSet/db");
    }
}

BOOST_AUTO_TEST_SUITE_END()
