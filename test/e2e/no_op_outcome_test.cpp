// docs/design.md §1.5 terminal outcomes that need no migration: opt-out requests and an already
// converged fleet finish Successful with the prescribed reason and zero counters.
#include <boost/test/unit_test.hpp>

#include "e2e/e2e_fixture.hpp"

using namespace schedopt::e2e;

namespace {

void expect_no_op(const json& r, const std::string& reason) {
  BOOST_TEST(r.value("/status/stage"_json_pointer, std::string()) == "Final");
  BOOST_TEST(status_of_request(r) == "Successful");
  BOOST_TEST(reason_of_request(r) == reason);
  BOOST_TEST(counter(r, "successful") == 0);
  BOOST_TEST(counter(r, "failed") == 0);
  BOOST_TEST(counter(r, "skipped") == 0);
  BOOST_TEST(vm_status(r).value("details", json::array()).size() == 0u);
  BOOST_TEST(!r.value("/status/finishTimestamp"_json_pointer, std::string()).empty());
}

} // namespace

BOOST_AUTO_TEST_SUITE(no_op_outcomes)

BOOST_AUTO_TEST_CASE(opt_out_and_empty_requests_finish_successful_with_reason) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "20", "--misplaced", "0.4", "--seed", "3",
                              "--migration-duration", "300ms"});
  BOOST_REQUIRE(!migratable_candidates(s.truth()).empty());
  s.start_controller();
  s.create_request("opt-out", {{"vmHyperconvergence", {{"enabled", false}}}});
  expect_no_op(s.wait_final("opt-out"), "vmHyperconvergence disabled");
  s.create_request("empty-spec", json::object());
  expect_no_op(s.wait_final("empty-spec"), "no optimization kind enabled");
  // Neither request may touch the fleet.
  BOOST_TEST(s.schedopt_vmims().size() == 0u);
  BOOST_TEST(migratable_candidates(s.truth()).size() > 0u);
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_CASE(converged_fleet_finishes_successful_with_empty_reason) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "20", "--misplaced", "0", "--seed", "4"});
  for (auto& t : s.truth())
    BOOST_TEST_CONTEXT("vm " << t.key()) { BOOST_REQUIRE(!t.misplaced); }
  s.start_controller();
  s.create_request("converged", scenario::enabled_spec());
  expect_no_op(s.wait_final("converged"), "");
  // Both kinds enabled over a fleet with no pod to move: each enabled kind writes its
  // block, zeros included, as the CRD says a block mirrors its spec field.
  auto both = scenario::enabled_spec();
  both["podHyperconvergence"] = {{"enabled", true}};
  s.create_request("converged-both", both);
  auto r = s.wait_final("converged-both");
  expect_no_op(r, "");
  const json zeros = {{"successful", 0}, {"skipped", 0}, {"failed", 0}, {"details", json::array()}};
  for (auto kind : {"vmHyperconvergence", "podHyperconvergence"})
    BOOST_TEST(r["status"].value(kind, json()) == zeros, kind << ": " << r["status"].dump());
  BOOST_TEST(s.schedopt_vmims().size() == 0u);
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
