// Hostile input (docs/testing.md), requests: malformed SchedulingOptimization specs the API server
// let in (old CRDs validate nothing: the simulator serves a lax CRD here, as the CRD of
// deploy/ refuses these specs with a 422). Each row is Final with its reason and a Warning
// event, and a good request created after all of them still migrates every candidate.
#include <boost/test/unit_test.hpp>

#include "e2e/bad_input.hpp"

using namespace schedopt::e2e;

namespace {

struct spec_row {
  const char* name;    // the request's name; also the row's label in docs/testing.md
  json spec;
  const char* status;  // the Final status
  std::string reason;  // exactly, or as a prefix when `prefix`
  bool prefix = false;
};

std::vector<spec_row> spec_rows() {
  const std::string mega(1024 * 1024, '9');
  return {
    {"enabled-is-a-string", {{"vmHyperconvergence", {{"enabled", "yes"}}}}, "Failed",
     "invalid spec.vmHyperconvergence.enabled: expected boolean, got string"},
    {"parallelism-is-a-string",
     {{"vmHyperconvergence", {{"enabled", true}, {"maxParallelMigrations", "five"}}}}, "Failed",
     "invalid spec.vmHyperconvergence.maxParallelMigrations: expected integer, got string"},
    {"parallelism-overflows-int64",
     {{"vmHyperconvergence", {{"enabled", true}, {"maxParallelMigrations", 1e30}}}}, "Failed",
     "invalid spec.vmHyperconvergence.maxParallelMigrations: expected integer", true},
    {"cool-off-is-a-number", {{"vmHyperconvergence", {{"enabled", true}, {"coolOffPeriod", 90}}}},
     "Failed", "invalid spec.vmHyperconvergence.coolOffPeriod: expected string, got number", true},
    {"cool-off-is-negative", {{"vmHyperconvergence", {{"enabled", true}, {"coolOffPeriod", "-5m"}}}},
     "Failed", "invalid spec.vmHyperconvergence.coolOffPeriod \"-5m\": ", true},
    {"cool-off-overflows", {{"vmHyperconvergence", {{"enabled", true}, {"coolOffPeriod", "3000000h"}}}},
     "Failed", "invalid spec.vmHyperconvergence.coolOffPeriod \"3000000h\": ", true},
    {"cool-off-is-1mb", {{"vmHyperconvergence", {{"enabled", true}, {"coolOffPeriod", mega + "s"}}}},
     "Failed", "invalid spec.vmHyperconvergence.coolOffPeriod \"999", true},
    {"kind-is-an-array", {{"vmHyperconvergence", json::array({true})}}, "Failed",
     "invalid spec.vmHyperconvergence: expected object, got array"},
    {"unknown-kind-only", {{"gpuDefragmentation", {{"enabled", true}}}}, "Successful",
     "no optimization kind enabled"},
    {"empty-spec", json::object(), "Successful", "no optimization kind enabled"},
  };
}

} // namespace

BOOST_AUTO_TEST_SUITE(bad_input)

BOOST_AUTO_TEST_CASE(hostile_specs_fail_alone) {
  scenario s("csi-topology", with_flags(fleet_flags("13"), lax_crd_flags()));
  auto candidates = required_candidates(s.truth());
  auto rows = spec_rows();
  std::set<std::string> bad_uids;
  for (auto& row : rows)
    bad_uids.insert(uid_of(s.create_request(row.name, row.spec)));
  s.create_request("zz-good", scenario::enabled_spec()); // the newest: runs last
  s.start_controller();
  for (auto& row : rows)
    BOOST_TEST_CONTEXT("row " << row.name) {
      auto r = s.wait_final(row.name);
      BOOST_TEST(status_of_request(r) == row.status);
      auto reason = reason_of_request(r);
      if (row.prefix)
        BOOST_TEST(starts_with(reason, row.reason), "reason: " << reason.substr(0, 300));
      else
        BOOST_TEST(reason == row.reason);
      BOOST_TEST(reason.size() <= 1024u); // a 1 MB value never reaches the status whole
      BOOST_TEST(counter(r, "successful") + counter(r, "failed") + counter(r, "skipped") == 0);
      if (std::string(row.status) == "Failed")
        BOOST_TEST(wait_event(s.sim(), row.name, "Warning", "Completed") == "finished Failed: " + reason);
    }
  auto good = s.wait_final("zz-good");
  expect_every_candidate_migrated(s.sim(), good, candidates, bad_uids);
  expect_same_controller(s);
  BOOST_TEST(s.controller().terminate() == 0);
}

// Out-of-range parallelism is clamped (docs/design.md §3.4), not a failure: the user gets a Warning
// ParallelismClamped event and the run goes on with the clamped worker count. Zero and
// negative values pass only a lax CRD (the CRD of deploy/ has minimum: 1).
BOOST_AUTO_TEST_CASE(out_of_range_parallelism_is_clamped_with_a_warning) {
  scenario s("csi-topology", with_flags(fleet_flags("19"), lax_crd_flags()));
  auto candidates = required_candidates(s.truth());
  s.create_request("clamp-1-huge", scenario::enabled_spec({{"maxParallelMigrations", 1000000000000LL}}));
  s.create_request("clamp-2-zero", scenario::enabled_spec({{"maxParallelMigrations", 0}}));
  s.create_request("clamp-3-negative", scenario::enabled_spec({{"maxParallelMigrations", -3}}));
  s.start_controller();
  auto huge = s.wait_final("clamp-1-huge");
  expect_every_candidate_migrated(s.sim(), huge, candidates);
  struct clamp_row {
    const char* name;
    std::string message;
  };
  for (auto& row : {clamp_row{"clamp-1-huge", "maxParallelMigrations 1000000000000 clamped to 50"},
                    clamp_row{"clamp-2-zero", "maxParallelMigrations 0 clamped to 1"},
                    clamp_row{"clamp-3-negative", "maxParallelMigrations -3 clamped to 1"}})
    BOOST_TEST_CONTEXT("row " << row.name) {
      auto r = s.wait_final(row.name);
      // Not Failed: a later request may skip a VM the first left semi-hyperconverged and
      // now cooling off (PartialSuccess); the clamp itself never fails a run.
      BOOST_TEST(status_of_request(r) != "Failed");
      BOOST_TEST(wait_event(s.sim(), row.name, "Warning", "ParallelismClamped") == row.message);
    }
  expect_same_controller(s);
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
