// docs/design.md §3.4 parallelism: maxParallelMigrations bounds schedopt's non-final VMIMs at every
// moment; a value beyond maxParallelMigrationsLimit is clamped with a Warning event.
#include <boost/test/unit_test.hpp>

#include "e2e/e2e_fixture.hpp"

using namespace schedopt::e2e;

BOOST_AUTO_TEST_SUITE(parallelism)

BOOST_AUTO_TEST_CASE(in_flight_vmims_never_exceed_max_parallel_migrations) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "30", "--misplaced", "0.5", "--seed", "19",
                              "--migration-duration", "500ms", "--parallel-migrations-per-cluster", "10",
                              "--parallel-outbound-migrations-per-node", "10"});
  auto expected = migratable_candidates(s.truth());
  BOOST_REQUIRE(expected.size() >= 6);
  s.start_controller({"--max-parallel-migrations-limit", "50"});
  s.create_request("two-at-a-time", scenario::enabled_spec({{"maxParallelMigrations", 2}}));
  std::size_t peak = 0, samples = 0;
  json r;
  bool done = eventually(
    [&] {
      std::size_t in_flight = 0;
      for (auto& m : s.schedopt_vmims())
        in_flight += is_final_phase(m) ? 0 : 1;
      peak = std::max(peak, in_flight);
      ++samples;
      r = s.request("two-at-a-time");
      return r.value("/status/stage"_json_pointer, std::string()) == "Final";
    },
    final_timeout);
  BOOST_REQUIRE_MESSAGE(done, "request not Final in time: " + r.dump());
  BOOST_TEST_MESSAGE("peak in-flight schedopt VMIMs " << peak << " over " << samples << " samples");
  BOOST_TEST(peak <= 2u);
  BOOST_TEST(peak >= 1u);
  BOOST_TEST(status_of_request(r) == "Successful");
  BOOST_TEST(counter(r, "successful") == (long long)expected.size());

  // Out of range: clamped to the limit, with a Warning event on the request.
  s.create_request("too-many", scenario::enabled_spec({{"maxParallelMigrations", 500}}));
  auto r2 = s.wait_final("too-many");
  BOOST_TEST(status_of_request(r2) == "Successful");
  bool warned = eventually(
    [&] {
      for (auto& e : items(s.sim(), "/api/v1/events"))
        if (e.value("reason", "") == "ParallelismClamped" && e.value("type", "") == "Warning"
            && e.value("/involvedObject/name"_json_pointer, std::string()) == "too-many"
            && e.value("/involvedObject/kind"_json_pointer, std::string()) == "SchedulingOptimization")
          return true;
      return false;
    },
    std::chrono::seconds(15), std::chrono::milliseconds(250));
  BOOST_TEST(warned, "no Warning event ParallelismClamped on request too-many");
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_CASE(candidates_beyond_max_non_hyperconverged_per_run_stay_outstanding) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "30", "--misplaced", "0.4", "--seed", "23",
                              "--migration-duration", "300ms", "--parallel-migrations-per-cluster", "10"});
  auto candidates = migratable_candidates(s.truth()); // sorted by (namespace, name)
  BOOST_REQUIRE(candidates.size() >= 6);
  std::vector<vmi_truth> run(candidates.begin(), candidates.begin() + 3);
  std::vector<vmi_truth> deferred(candidates.begin() + 3, candidates.end());
  s.start_controller({"--max-non-hyperconverged-per-run", "3"});
  s.create_request("bounded", scenario::enabled_spec());
  auto r = s.wait_final("bounded");

  long long k = (long long)deferred.size();
  std::string reason = std::to_string(k) + (k == 1 ? " candidate outstanding: " : " candidates outstanding: ")
                       + std::to_string(k) + " deferred by maxNonHyperconvergedPerRun: ";
  for (std::size_t i = 0; i < deferred.size(); ++i)
    reason += (i ? ", " : "") + deferred[i].key();
  BOOST_TEST(status_of_request(r) == "PartialSuccess");
  if (reason.size() <= 256)
    BOOST_TEST(reason_of_request(r) == reason);
  else
    BOOST_TEST(starts_with(reason_of_request(r), reason.substr(0, reason.find(": ", reason.find("Run")) + 2)));
  BOOST_TEST(counter(r, "successful") == 3);
  BOOST_TEST(counter(r, "failed") == 0);
  BOOST_TEST(counter(r, "skipped") == 0);
  auto details = details_by_vm(r);
  BOOST_TEST(details.size() <= 3u);
  for (auto& t : run)
    BOOST_TEST_CONTEXT("vm " << t.key()) {
      BOOST_REQUIRE(details.count(t.key()) == 1);
      BOOST_TEST(details[t.key()].value("status", "") == "Successful");
    }
  // The deferred ones were left alone: still misplaced, no VMIM.
  auto after = keys(migratable_candidates(s.truth()));
  for (auto& t : deferred)
    BOOST_TEST_CONTEXT("vm " << t.key()) { BOOST_TEST(after.count(t.key()) == 1u); }
  BOOST_TEST(s.schedopt_vmims().size() == 3u);
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
