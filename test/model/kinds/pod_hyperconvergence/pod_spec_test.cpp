// spec.podHyperconvergence (pod_spec.hpp) and status.podHyperconvergence
// (pod_status.hpp): decoding, the VM kind's floors and clamps, counters and details.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "model/kinds/pod_hyperconvergence/pod_spec.hpp"
#include "model/kinds/pod_hyperconvergence/pod_status.hpp"

using namespace schedopt;
using namespace schedopt::pod_hyperconvergence;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(pod_spec)

BOOST_AUTO_TEST_CASE(the_fragment_decodes_with_paths_under_the_spec) {
  auto s = decode_spec(R"({"enabled":true,"coolOffPeriod":"30m","maxParallelEvictions":3})");
  BOOST_REQUIRE(s);
  BOOST_CHECK(s->enabled);
  BOOST_CHECK_EQUAL(*s->cool_off_period, "30m");
  BOOST_CHECK_EQUAL(*s->max_parallel_evictions, 3);
  auto empty = decode_spec("{}");
  BOOST_REQUIRE(empty);
  BOOST_CHECK(!empty->enabled && !empty->cool_off_period && !empty->max_parallel_evictions);
  auto bad = decode_spec(R"({"enabled":"yes"})");
  BOOST_REQUIRE(!bad);
  BOOST_CHECK_EQUAL(bad.err().message, "spec.podHyperconvergence.enabled: expected boolean, got string");
  auto not_object = decode_spec("true");
  BOOST_REQUIRE(!not_object);
  BOOST_CHECK_EQUAL(not_object.err().message, "spec.podHyperconvergence: expected object, got boolean");
  auto fraction = decode_spec(R"({"maxParallelEvictions":2.5})");
  BOOST_REQUIRE(!fraction);
  BOOST_CHECK(fraction.err().message.rfind("spec.podHyperconvergence.maxParallelEvictions: ", 0) == 0);
}

BOOST_AUTO_TEST_CASE(to_json_writes_the_crd_fields) {
  pod_hyperconvergence_spec s;
  s.enabled = true;
  s.max_parallel_evictions = 4;
  auto j = to_json(s);
  BOOST_CHECK_EQUAL(j["enabled"], true);
  BOOST_CHECK_EQUAL(j["maxParallelEvictions"], 4);
  BOOST_CHECK(!j.contains("coolOffPeriod"));
  BOOST_CHECK(*decode_spec(j.dump())->max_parallel_evictions == 4);
}

BOOST_AUTO_TEST_CASE(settings_fall_back_on_the_cluster_and_keep_its_floors) {
  cluster_defaults d;
  pod_hyperconvergence_spec s;
  s.enabled = true;
  auto r = choose_run_settings(s, d);
  BOOST_CHECK(r.error.empty());
  BOOST_CHECK(r.cool_off == 1h);
  BOOST_CHECK_EQUAL(r.max_parallel_evictions, 5);
  BOOST_CHECK(r.cool_off_clamped.empty() && r.parallelism_clamped.empty());
  s.cool_off_period = "90s";
  s.max_parallel_evictions = 500;
  r = choose_run_settings(s, d);
  BOOST_CHECK(r.cool_off == 5min);
  BOOST_CHECK_EQUAL(r.cool_off_clamped,
                    "coolOffPeriod 1m30s is below the cluster's minCoolOffPeriod; 5m0s is used");
  BOOST_CHECK_EQUAL(r.max_parallel_evictions, 50);
  BOOST_CHECK_EQUAL(r.parallelism_clamped, "maxParallelEvictions 500 clamped to 50");
  s.cool_off_period = "1.5h";
  s.max_parallel_evictions = 0;
  r = choose_run_settings(s, d);
  BOOST_CHECK(r.cool_off == 90min);
  BOOST_CHECK_EQUAL(r.max_parallel_evictions, 1);
  BOOST_CHECK_EQUAL(r.parallelism_clamped, "maxParallelEvictions 0 clamped to 1");
}

BOOST_AUTO_TEST_CASE(a_cool_off_that_is_no_duration_fails_the_kind) {
  pod_hyperconvergence_spec s;
  s.cool_off_period = "abc";
  auto r = choose_run_settings(s, cluster_defaults{});
  BOOST_CHECK(r.error.rfind("invalid spec.podHyperconvergence.coolOffPeriod \"abc\": ", 0) == 0);
  s.cool_off_period = std::string(5000, '9');
  r = choose_run_settings(s, cluster_defaults{});
  BOOST_CHECK_LE(r.error.size(), 256u);
  BOOST_CHECK(r.error.find("(5000 bytes)") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(pod_status)

BOOST_AUTO_TEST_CASE(the_block_encodes_as_the_vm_kinds_does) {
  pod_hyperconvergence_status s;
  s.successful = 1;
  s.failed = 1;
  s.details = {{"db-0", "ns", pod_result::successful, ""},
               {"db-1", "ns", pod_result::failed, "RescheduledOffReplica: n1"}};
  auto j = to_json(s);
  BOOST_CHECK_EQUAL(j["successful"], 1);
  BOOST_CHECK_EQUAL(j["skipped"], 0);
  BOOST_CHECK_EQUAL(j["details"][0]["status"], "Successful");
  BOOST_CHECK(!j["details"][0].contains("reason"));
  BOOST_CHECK_EQUAL(j["details"][1]["reason"], "RescheduledOffReplica: n1");
  BOOST_CHECK(to_json(pod_hyperconvergence_status{})["details"].is_array());
  auto back = decode_status_block(j.dump());
  BOOST_REQUIRE(back);
  BOOST_CHECK_EQUAL(back->failed, 1);
  BOOST_REQUIRE_EQUAL(back->details.size(), 2u);
  BOOST_CHECK(back->details[1].status == pod_result::failed);
  BOOST_CHECK_EQUAL(back->details[1].namespace_, "ns");
}

BOOST_AUTO_TEST_CASE(the_tally_counts_each_pod_once_and_caps_details) {
  status_tally t{2};
  BOOST_CHECK(t.record({"a", "ns", pod_result::skipped, "NoController: no controller"}));
  BOOST_CHECK(t.record({"b", "ns", pod_result::successful, "stray"}));
  BOOST_CHECK(t.record({"c", "ns", pod_result::failed, "EvictionFailed: x"}));
  BOOST_CHECK(!t.record({"a", "ns", pod_result::failed, "again"}));
  const auto& s = t.status();
  BOOST_CHECK_EQUAL(s.skipped, 1);
  BOOST_CHECK_EQUAL(s.successful, 1);
  BOOST_CHECK_EQUAL(s.failed, 1);
  BOOST_REQUIRE_EQUAL(s.details.size(), 2u); // capped; counters exact
  BOOST_CHECK(s.details[1].reason.empty());  // Successful carries no reason
  status_tally resumed{10};
  resumed.restore(s);
  BOOST_CHECK(resumed.counted("ns", "a"));
  BOOST_CHECK(!resumed.record({"b", "ns", pod_result::successful, ""}));
  BOOST_CHECK(resumed.record({"d", "ns", pod_result::skipped, "CoolingOff: eligible after x"}));
  BOOST_CHECK_EQUAL(resumed.status().skipped, 2);
}

BOOST_AUTO_TEST_SUITE_END()
