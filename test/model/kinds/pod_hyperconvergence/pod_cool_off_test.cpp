// The pod kind's cool-off record (pod_cool_off.hpp): held by the owning workload,
// read and written with model/cool_off.hpp's helpers.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "model/kinds/pod_hyperconvergence/pod_cool_off.hpp"
#include "model/kinds/pod_hyperconvergence/pod_test_world.hpp"

using namespace schedopt;
using namespace schedopt::test::pods;

BOOST_AUTO_TEST_SUITE(pod_cool_off)

BOOST_AUTO_TEST_CASE(the_record_lives_on_the_statefulset_or_replicaset) {
  workload_ref sts{workload_kind::stateful_set, "ns", "db", "u1"};
  auto h = cool_off_holder_of(sts);
  BOOST_CHECK_EQUAL(h.api_version, "apps/v1");
  BOOST_CHECK_EQUAL(h.kind, "StatefulSet");
  BOOST_CHECK_EQUAL(h.resource, "statefulsets");
  BOOST_CHECK_EQUAL(h.namespace_, "ns");
  BOOST_CHECK_EQUAL(h.name, "db");
  workload_ref rs{workload_kind::replica_set, "ns", "web-7d9f", "u2"};
  BOOST_CHECK_EQUAL(cool_off_holder_of(rs).resource, "replicasets");
  BOOST_CHECK_EQUAL(cool_off_holder_of(rs).kind, "ReplicaSet");
}

BOOST_AUTO_TEST_CASE(the_patch_is_the_vm_kinds_with_the_pod_key) {
  auto patch = cool_off_patch(default_pod_cool_off_annotation, at("2026-11-30T12:00:00Z"), "req-1");
  const auto& a = patch["metadata"]["annotations"];
  BOOST_CHECK_EQUAL(a["schedopt.libopenstorage.org/last-eviction-time"], "2026-11-30T12:00:00Z");
  BOOST_CHECK_EQUAL(a["schedopt.libopenstorage.org/last-eviction-time-request-uid"], "req-1");
}

BOOST_AUTO_TEST_CASE(cooling_off_until_the_period_is_over_unless_this_request_wrote_it) {
  const std::string key = default_pod_cool_off_annotation;
  string_map a{{key, "2026-11-30T11:30:00Z"}, {cool_off_request_annotation(key), "req-1"}};
  auto now = at("2026-11-30T12:00:00Z");
  auto until = cooling_off_until(a, key, "req-2", std::chrono::hours(1), now);
  BOOST_REQUIRE(until && *until);
  BOOST_CHECK_EQUAL(format_rfc3339(**until), "2026-11-30T12:30:00Z");
  BOOST_CHECK(!*cooling_off_until(a, key, "req-1", std::chrono::hours(1), now));
  BOOST_CHECK(!*cooling_off_until(a, key, "req-2", std::chrono::minutes(30), now)); // ends at now
  BOOST_CHECK(!*cooling_off_until({}, key, "req-2", std::chrono::hours(1), now));
  auto bad = cooling_off_until({{key, "noon"}}, key, "req-2", std::chrono::hours(1), now);
  BOOST_REQUIRE(!bad);
  BOOST_CHECK(bad.err().message.find("noon") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
