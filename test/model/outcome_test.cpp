// docs/design.md §1.5 terminal outcomes, one case per row of the rules.
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "model/objects.hpp"
#include "model/outcome.hpp"

using namespace schedopt;

namespace {

run_summary counts(int64_t successful, int64_t skipped, int64_t failed,
                   std::vector<std::string> outstanding = {}) {
  run_summary r;
  r.successful = successful;
  r.skipped = skipped;
  r.failed = failed;
  r.outstanding = std::move(outstanding);
  return r;
}

} // namespace

BOOST_AUTO_TEST_SUITE(outcome)

BOOST_AUTO_TEST_CASE(no_kind_enabled_is_successful_with_reason) {
  auto o = decide_request_outcome(request_summary{});
  BOOST_TEST(o.status == request_status::successful);
  BOOST_TEST(o.reason == "no optimization kind enabled");
}

BOOST_AUTO_TEST_CASE(kind_disabled_is_successful_with_reason) {
  run_summary r = counts(0, 0, 0);
  auto o = decide_request_outcome(request_summary{std::nullopt, {{"vmHyperconvergence", false, r}}});
  BOOST_TEST(o.status == request_status::successful);
  BOOST_TEST(o.reason == "vmHyperconvergence disabled");
}

BOOST_AUTO_TEST_CASE(converged_fleet_is_successful_without_reason) {
  auto o = decide_outcome(counts(0, 0, 0));
  BOOST_TEST(o.status == request_status::successful);
  BOOST_TEST(o.reason == "");
}

BOOST_AUTO_TEST_CASE(every_candidate_migrated_is_successful_without_reason) {
  auto o = decide_outcome(counts(7, 0, 0));
  BOOST_TEST(o.status == request_status::successful);
  BOOST_TEST(o.reason == "");
}

BOOST_AUTO_TEST_CASE(some_left_over_is_partial_success) {
  auto o = decide_outcome(counts(4, 2, 1));
  BOOST_TEST(o.status == request_status::partial_success);
  BOOST_TEST(o.reason == "3 candidates outstanding: 1 failed, 2 skipped");
  auto skipped_only = decide_outcome(counts(0, 2, 0));
  BOOST_TEST(skipped_only.status == request_status::partial_success); // nothing failed
  BOOST_TEST(skipped_only.reason == "2 candidates outstanding: 2 skipped");
  auto one = decide_outcome(counts(1, 0, 1));
  BOOST_TEST(one.status == request_status::partial_success);
  BOOST_TEST(one.reason == "1 candidate outstanding: 1 failed");
}

BOOST_AUTO_TEST_CASE(nothing_succeeded_and_something_failed_is_failed) {
  auto o = decide_outcome(counts(0, 1, 2));
  BOOST_TEST(o.status == request_status::failed);
  BOOST_TEST(o.reason == "3 candidates outstanding: 2 failed, 1 skipped");
}

BOOST_AUTO_TEST_CASE(run_failure_is_failed_with_its_reason) {
  run_summary r = counts(3, 0, 0);
  r.run_failure =
    run_failure{run_failure_kind::driver, "driver failure: portworx: connection refused"};
  auto o = decide_outcome(r);
  BOOST_TEST(o.status == request_status::failed);
  BOOST_TEST(o.reason == "driver failure: portworx: connection refused");
  r.run_failure =
    run_failure{run_failure_kind::invalid_spec,
                "invalid spec.vmHyperconvergence.coolOffPeriod \"abc\": invalid duration"};
  BOOST_TEST(decide_outcome(r).reason == r.run_failure->reason);
  r.run_failure = run_failure{run_failure_kind::internal, std::string(5000, 'x')};
  BOOST_TEST(decide_outcome(r).reason.size() == max_status_reason_bytes);
}

BOOST_AUTO_TEST_CASE(disabled_wins_over_run_failure) {
  run_summary r = counts(0, 0, 0);
  r.run_failure = run_failure{run_failure_kind::driver, "driver failure: x"};
  BOOST_TEST(decide_request_outcome(request_summary{std::nullopt, {{"vmHyperconvergence", false, r}}}).status
             == request_status::successful);
}

BOOST_AUTO_TEST_CASE(deferred_candidates_are_named) {
  auto o = decide_outcome(counts(100, 1, 0, {"ns/a", "ns/b"}));
  BOOST_TEST(o.status == request_status::partial_success);
  BOOST_TEST(o.reason == "3 candidates outstanding: 1 skipped, 2 deferred by maxNonHyperconvergedPerRun: ns/a, ns/b");
  auto only = decide_outcome(counts(100, 0, 0, {"ns/a"}));
  BOOST_TEST(only.status == request_status::partial_success);
  BOOST_TEST(only.reason == "1 candidate outstanding: 1 deferred by maxNonHyperconvergedPerRun: ns/a");
}

BOOST_AUTO_TEST_CASE(long_deferred_list_is_capped_and_keeps_the_count) {
  std::vector<std::string> names;
  for (int i = 0; i < 500; ++i)
    names.push_back("namespace-" + std::to_string(i) + "/vm-with-a-long-name-" + std::to_string(i));
  auto o = decide_outcome(counts(100, 0, 0, names));
  BOOST_TEST(o.reason.size() <= max_status_reason_bytes);
  BOOST_TEST(o.reason.rfind("500 candidates outstanding: 500 deferred by maxNonHyperconvergedPerRun: namespace-0/", 0) == 0u);
  BOOST_TEST(o.reason.find(" more") != std::string::npos);
  // "... and N more" accounts for exactly the names not listed.
  auto listed = static_cast<int>(std::count(o.reason.begin(), o.reason.end(), '/'));
  auto pos = o.reason.rfind(" and ");
  BOOST_REQUIRE(pos != std::string::npos);
  int more = std::stoi(o.reason.substr(pos + 5));
  BOOST_TEST(listed + more == 500);
}

// docs/design.md §1, several kinds per request: the request's outcome combines theirs.

BOOST_AUTO_TEST_CASE(one_enabled_kind_decides_alone) {
  // A disabled kind beside it changes nothing: its outcome and reason are the kind's.
  request_summary r{std::nullopt, {{"vmHyperconvergence", true, counts(4, 2, 1)},
                                   {"podHyperconvergence", false, counts(0, 0, 0)}}};
  auto o = decide_request_outcome(r);
  BOOST_TEST(o.status == request_status::partial_success);
  BOOST_TEST(o.reason == "3 candidates outstanding: 1 failed, 2 skipped");
}

BOOST_AUTO_TEST_CASE(every_kind_disabled_names_each) {
  request_summary r{std::nullopt, {{"vmHyperconvergence", false, {}}, {"podHyperconvergence", false, {}}}};
  auto o = decide_request_outcome(r);
  BOOST_TEST(o.status == request_status::successful);
  BOOST_TEST(o.reason == "vmHyperconvergence disabled, podHyperconvergence disabled");
}

BOOST_AUTO_TEST_CASE(several_kinds_successful_only_when_each_is) {
  request_summary r{std::nullopt, {{"vmHyperconvergence", true, counts(3, 0, 0)},
                                   {"podHyperconvergence", true, counts(0, 0, 0)}}};
  auto o = decide_request_outcome(r);
  BOOST_TEST(o.status == request_status::successful);
  BOOST_TEST(o.reason == "");
}

BOOST_AUTO_TEST_CASE(several_kinds_one_short_is_partial_and_named) {
  request_summary r{std::nullopt, {{"vmHyperconvergence", true, counts(3, 0, 0)},
                                   {"podHyperconvergence", true, counts(0, 0, 2)}}};
  auto o = decide_request_outcome(r);
  // The pod kind failed on its own; the request did not, since the VMs converged.
  BOOST_TEST(o.status == request_status::partial_success);
  BOOST_TEST(o.reason == "podHyperconvergence: 2 candidates outstanding: 2 failed");
}

BOOST_AUTO_TEST_CASE(several_kinds_all_failed_is_failed_and_names_each) {
  run_summary driver = counts(0, 0, 0);
  driver.run_failure = run_failure{run_failure_kind::driver, "driver failure: x"};
  request_summary r{std::nullopt, {{"vmHyperconvergence", true, driver},
                                   {"podHyperconvergence", true, counts(0, 1, 1)}}};
  auto o = decide_request_outcome(r);
  BOOST_TEST(o.status == request_status::failed);
  BOOST_TEST(o.reason == "vmHyperconvergence: driver failure: x; "
                         "podHyperconvergence: 2 candidates outstanding: 1 failed, 1 skipped");
}

BOOST_AUTO_TEST_CASE(several_kinds_partial_and_failed_is_partial) {
  request_summary r{std::nullopt, {{"vmHyperconvergence", true, counts(1, 1, 0)},
                                   {"podHyperconvergence", true, counts(0, 0, 1)}}};
  auto o = decide_request_outcome(r);
  BOOST_TEST(o.status == request_status::partial_success);
  BOOST_TEST(o.reason.find("vmHyperconvergence: 1 candidate outstanding: 1 skipped") == 0u);
}

BOOST_AUTO_TEST_CASE(invalid_spec_fails_the_request_before_any_kind) {
  request_summary r{run_failure{run_failure_kind::invalid_spec,
                                "invalid spec.vmHyperconvergence.enabled: expected boolean, got string"},
                    {{"vmHyperconvergence", true, counts(5, 0, 0)}}};
  auto o = decide_request_outcome(r);
  BOOST_TEST(o.status == request_status::failed);
  BOOST_TEST(o.reason == "invalid spec.vmHyperconvergence.enabled: expected boolean, got string");
}

BOOST_AUTO_TEST_SUITE_END()
