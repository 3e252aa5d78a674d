// What a restarted run of a request already did (pod_resume.hpp): evictions recorded on
// owners are adopted or evaluated again, never sent twice; counted pods are not judged
// again; replacements of adopted ReplicaSet evictions are no candidates of their own.
#include <boost/test/unit_test.hpp>

#include "model/kinds/pod_hyperconvergence/pod_resume.hpp"
#include "model/kinds/pod_hyperconvergence/pod_store_fields.hpp"
#include "model/kinds/pod_hyperconvergence/pod_test_world.hpp"

using namespace schedopt;
using namespace schedopt::test::pods;

namespace {

const std::string key = default_pod_cool_off_annotation;

string_map record(const std::string& request, const std::string& ledger) {
  return {{key, "2026-11-30T11:59:00Z"},
          {cool_off_request_annotation(key), request},
          {eviction_ledger_annotation(key), ledger}};
}

pod owned(const std::string& name, const std::string& uid, const std::string& kind,
          const std::string& owner, const char* created = "2026-11-30T11:00:00Z") {
  pod p = make_pod("ns", name, "n1");
  p.metadata.uid = uid;
  p.metadata.owner_references.push_back(controller(kind, owner));
  p.metadata.creation_timestamp = created;
  return p;
}

} // namespace

BOOST_AUTO_TEST_SUITE(pod_resume)

BOOST_AUTO_TEST_CASE(ledger_entries_are_adopted_when_gone_and_evaluated_again_when_not) {
  auto db = make_stateful_set("ns", "db");
  db.metadata.annotations = record("req-1", "db-0/u0/2026-11-30T11:59:00Z/n2,"
                                            "db-1/u1/2026-11-30T11:59:00Z/n2,"
                                            "db-2/u2/2026-11-30T11:59:00Z/n2");
  auto other = make_stateful_set("ns", "queue");
  other.metadata.annotations = record("req-0", "queue-0/q0/2026-11-30T11:59:00Z/n2");
  auto web = make_replica_set("ns", "web");
  web.metadata.annotations = record("req-1", "web-a/wa/2026-11-30T11:59:00Z/n2");
  std::vector<pod> pods{
    owned("db-0", "u0-new", "StatefulSet", "db"), // replaced: evicted before the crash
    owned("db-1", "u1", "StatefulSet", "db"),     // never evicted
    owned("queue-0", "q0-new", "StatefulSet", "queue"),
    owned("web-old", "wo", "ReplicaSet", "web"),
    owned("web-x", "wx", "ReplicaSet", "web", "2026-11-30T11:59:30Z"), // web-a's replacement
  };
  pod_hyperconvergence_status recorded;
  recorded.successful = 1;
  recorded.details.push_back({"db-2", "ns", pod_result::successful, ""});
  auto plan = plan_resume(recorded, share_all(pods), share_all(std::vector<stateful_set>{db, other}),
                          share_all(std::vector<replica_set>{web}), "req-1");
  BOOST_REQUIRE_EQUAL(plan.in_flight.size(), 2u);
  BOOST_CHECK_EQUAL(plan.in_flight[0].name, "db-0");
  BOOST_CHECK_EQUAL(plan.in_flight[0].uid, "u0");
  BOOST_CHECK_EQUAL(plan.in_flight[1].name, "web-a");
  BOOST_REQUIRE_EQUAL(plan.not_evicted.size(), 1u);
  BOOST_CHECK_EQUAL(plan.not_evicted[0].second, "db-1");
  BOOST_CHECK(plan.handled.count("ns/db-0"));  // its replacement is tracked, not evicted
  BOOST_CHECK(plan.handled.count("ns/db-2"));  // counted already
  BOOST_CHECK(plan.handled.count("ns/web-x")); // web-a's replacement
  BOOST_CHECK(!plan.handled.count("ns/db-1"));
  BOOST_CHECK(!plan.handled.count("ns/web-old"));
  BOOST_CHECK(!plan.handled.count("ns/queue-0")); // another request's ledger
  BOOST_CHECK_EQUAL(plan.slots_used, 3); // db-2, db-0, web-a
}

BOOST_AUTO_TEST_CASE(a_terminating_pod_of_the_ledger_was_evicted) {
  auto db = make_stateful_set("ns", "db");
  db.metadata.annotations = record("req-1", "db-0/u0/2026-11-30T11:59:00Z/n2");
  auto p = owned("db-0", "u0", "StatefulSet", "db");
  p.metadata.deletion_timestamp = "2026-11-30T11:59:01Z";
  auto plan = plan_resume({}, share_all(std::vector<pod>{p}), share_all(std::vector<stateful_set>{db}),
                          {}, "req-1");
  BOOST_CHECK_EQUAL(plan.in_flight.size(), 1u);
  BOOST_CHECK(plan.not_evicted.empty());
}

BOOST_AUTO_TEST_CASE(unnamed_skips_are_not_counted_twice) {
  pod_hyperconvergence_status recorded;
  recorded.skipped = 3; // details were full: one of the three is named
  recorded.details.push_back({"a", "ns", pod_result::skipped, "NoController"});
  auto plan = plan_resume(recorded, {}, {}, {}, "req-1");
  BOOST_CHECK_EQUAL(plan.unnamed_skips, 2);
  BOOST_CHECK_EQUAL(plan.slots_used, 0); // an evaluator's skip takes no slot
  std::vector<pod_detail> again{{"b", "ns", pod_result::skipped, "NoController"},
                                {"c", "ns", pod_result::skipped, "NoController"},
                                {"d", "ns", pod_result::skipped, "NoController"}};
  auto fresh = new_skips(again, plan.unnamed_skips);
  BOOST_REQUIRE_EQUAL(fresh.size(), 1u);
  BOOST_CHECK_EQUAL(fresh[0].name, "d");
}

BOOST_AUTO_TEST_CASE(a_budget_skip_is_the_engines_and_takes_a_slot) {
  pod_hyperconvergence_status recorded;
  recorded.skipped = 1;
  recorded.details.push_back({"a", "ns", pod_result::skipped, "DisruptionBudget: no"});
  BOOST_CHECK_EQUAL(plan_resume(recorded, {}, {}, {}, "req-1").slots_used, 1);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(pod_store_fields)

BOOST_AUTO_TEST_CASE(stores_keep_what_decisions_read) {
  pod p = make_pod("ns", "db-0", "n1");
  p.metadata.annotations = {{"kubectl.kubernetes.io/restartedAt", "x"}};
  p.conditions = {{"Initialized", "True", "", "", "t"},
                  {"Ready", "True", "", "", "2026-11-30T11:00:00Z"},
                  {"PodScheduled", "True", "", "", "t"}};
  kept_fields kept;
  kept.cool_off_annotations = {key};
  keep_decision_fields(p, kept);
  BOOST_CHECK(p.metadata.annotations.empty());
  BOOST_REQUIRE_EQUAL(p.conditions.size(), 2u);
  BOOST_CHECK(is_ready(p));
  BOOST_CHECK(p.conditions[0].last_transition_time.empty());
  auto s = make_stateful_set("ns", "db");
  s.metadata.annotations = record("req-1", "db-0/u0/2026-11-30T11:59:00Z/n2");
  s.metadata.annotations["deployment.kubernetes.io/revision"] = "3";
  s.metadata.labels = {{"schedopt.libopenstorage.org/exclude", "true"}};
  // What the controller's owner informers keep: the whole eviction record, ledger included.
  kept.cool_off_annotations = eviction_record_keys(key);
  keep_decision_fields(s, kept);
  BOOST_CHECK_EQUAL(s.metadata.annotations.size(), 3u);
  BOOST_CHECK_EQUAL(read_eviction_ledger(s.metadata.annotations, key, "req-1").size(), 1u);
  BOOST_CHECK_EQUAL(s.metadata.labels.size(), 1u);
}

BOOST_AUTO_TEST_SUITE_END()
