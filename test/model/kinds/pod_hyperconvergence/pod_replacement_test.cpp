// Replacement tracking after an eviction (replacement.hpp): which pod replaces the
// evicted one for a StatefulSet and a ReplicaSet, and the outcome it makes.
#include <boost/test/unit_test.hpp>

#include "model/kinds/pod_hyperconvergence/replacement.hpp"
#include "model/kinds/pod_hyperconvergence/pod_test_world.hpp"

using namespace schedopt;
using namespace schedopt::test::pods;
using namespace std::chrono_literals;

namespace {

evicted_pod evicted_sts() {
  evicted_pod e;
  e.namespace_ = "ns";
  e.name = "db-0";
  e.uid = "uid-old";
  e.owner = {workload_kind::stateful_set, "ns", "db", "uid-db"};
  e.evicted_at = at("2026-11-30T12:00:00.500Z");
  e.best_nodes = {"n2", "n3"};
  return e;
}

pod member(const std::string& name, const std::string& uid, const std::string& node,
           const std::string& kind = "StatefulSet", const std::string& owner = "db") {
  pod p = make_pod("ns", name, node);
  p.metadata.uid = uid;
  p.metadata.owner_references.push_back(controller(kind, owner));
  p.metadata.creation_timestamp = "2026-11-30T12:00:05Z";
  return p;
}

pod not_ready(pod p) {
  p.conditions = {{"Ready", "False", "ContainersNotReady", "containers with unready status: [db]", ""}};
  return p;
}

} // namespace

BOOST_AUTO_TEST_SUITE(pod_replacement)

BOOST_AUTO_TEST_CASE(a_statefulset_replacement_is_its_name_with_a_new_uid) {
  auto e = evicted_sts();
  auto old = member("db-0", "uid-old", "n1");
  old.metadata.deletion_timestamp = "2026-11-30T12:00:01Z";
  auto pods = share_all(std::vector<pod>{old, member("db-1", "uid-1", "n2")});
  BOOST_CHECK(!find_replacement(e, pods)); // only the terminating original
  auto v = judge_replacement(e, pods, e.evicted_at + 1min);
  BOOST_CHECK(v.state == replacement_state::waiting);
  pods = share_all(std::vector<pod>{member("db-0", "uid-new", "n2"), member("db-1", "uid-1", "n2")});
  auto* r = find_replacement(e, pods);
  BOOST_REQUIRE(r);
  BOOST_CHECK_EQUAL(r->metadata.uid, "uid-new");
}

BOOST_AUTO_TEST_CASE(an_eligible_candidate_becomes_an_eviction_record) {
  eviction_candidate c;
  c.target = std::make_shared<const pod>(member("db-0", "uid-old", "n1"));
  c.owner = {workload_kind::stateful_set, "ns", "db", "uid-db"};
  c.best_nodes = {"n2", "n3"};
  c.target_nodes = {"n2"};
  auto e = eviction_record(c, at("2026-11-30T12:00:00Z"));
  BOOST_CHECK_EQUAL(e.namespace_, "ns");
  BOOST_CHECK_EQUAL(e.name, "db-0");
  BOOST_CHECK_EQUAL(e.uid, "uid-old");
  BOOST_CHECK_EQUAL(e.owner.name, "db");
  BOOST_CHECK(e.best_nodes == c.best_nodes); // Successful on any best node, not only targets
  BOOST_CHECK(e.evicted_at == at("2026-11-30T12:00:00Z"));
}

BOOST_AUTO_TEST_CASE(ready_on_a_best_node_is_successful) {
  auto e = evicted_sts();
  auto pods = share_all(std::vector<pod>{member("db-0", "uid-new", "n3")});
  auto v = judge_replacement(e, pods, e.evicted_at + 30s);
  BOOST_CHECK(v.state == replacement_state::successful);
  BOOST_CHECK(v.reason.empty());
  BOOST_CHECK_EQUAL(v.pod_uid, "uid-new");
  BOOST_CHECK_EQUAL(v.node, "n3");
}

BOOST_AUTO_TEST_CASE(ready_elsewhere_is_rescheduled_off_replica) {
  auto e = evicted_sts();
  auto pods = share_all(std::vector<pod>{member("db-0", "uid-new", "n1")});
  auto v = judge_replacement(e, pods, e.evicted_at + 30s);
  BOOST_CHECK(v.state == replacement_state::failed);
  BOOST_CHECK_EQUAL(v.reason, "RescheduledOffReplica: n1");
}

BOOST_AUTO_TEST_CASE(not_ready_waits_until_the_timeout_then_says_what_it_saw) {
  auto e = evicted_sts();
  auto pods = share_all(std::vector<pod>{not_ready(member("db-0", "uid-new", "n2"))});
  BOOST_CHECK(judge_replacement(e, pods, e.evicted_at + 9min).state == replacement_state::waiting);
  auto v = judge_replacement(e, pods, e.evicted_at + 10min);
  BOOST_CHECK(v.state == replacement_state::failed);
  BOOST_CHECK_EQUAL(v.reason, "ReplacementNotReady: db-0 on n2 not Ready after 10m0s: phase Running, "
                              "ContainersNotReady (containers with unready status: [db])");
  // A shorter podReadyTimeout.
  BOOST_CHECK(judge_replacement(e, pods, e.evicted_at + 2min, 2min).state
              == replacement_state::failed);
}

BOOST_AUTO_TEST_CASE(the_not_ready_detail_covers_unscheduled_missing_and_stuck_pods) {
  auto e = evicted_sts();
  auto late = e.evicted_at + 10min;
  auto unscheduled = not_ready(member("db-0", "uid-new", ""));
  unscheduled.phase = "Pending";
  unscheduled.conditions.push_back({"PodScheduled", "False", "Unschedulable",
                                    "0/3 nodes are available: 3 Insufficient memory.", ""});
  auto v = judge_replacement(e, share_all(std::vector<pod>{unscheduled}), late);
  BOOST_CHECK_EQUAL(v.reason, "ReplacementNotReady: db-0 not scheduled after 10m0s: Unschedulable "
                              "(0/3 nodes are available: 3 Insufficient memory.)");
  v = judge_replacement(e, {}, late);
  BOOST_CHECK_EQUAL(v.reason, "ReplacementNotReady: no replacement of db-0 after 10m0s");
  auto stuck = member("db-0", "uid-old", "n1");
  stuck.metadata.deletion_timestamp = "2026-11-30T12:00:01Z";
  v = judge_replacement(e, share_all(std::vector<pod>{stuck}), late);
  BOOST_CHECK_EQUAL(v.reason,
                    "ReplacementNotReady: db-0 still terminating after 10m0s, no replacement yet");
}

BOOST_AUTO_TEST_CASE(a_replicaset_replacement_is_a_new_unclaimed_pod_of_the_same_set) {
  evicted_pod e;
  e.namespace_ = "ns";
  e.name = "web-7d9f-abcde";
  e.uid = "uid-old";
  e.owner = {workload_kind::replica_set, "ns", "web-7d9f", "uid-web-7d9f"};
  e.evicted_at = at("2026-11-30T12:00:00.700Z");
  e.best_nodes = {"n2"};
  auto before = member("web-7d9f-older", "uid-a", "n2", "ReplicaSet", "web-7d9f");
  before.metadata.creation_timestamp = "2026-11-30T11:00:00Z"; // a sibling from before
  auto other_set = member("web-8e0a-x", "uid-b", "n2", "ReplicaSet", "web-8e0a");
  auto same_second = member("web-7d9f-first", "uid-c", "n1", "ReplicaSet", "web-7d9f");
  same_second.metadata.creation_timestamp = "2026-11-30T12:00:00Z"; // the eviction's second
  auto next = member("web-7d9f-second", "uid-d", "n2", "ReplicaSet", "web-7d9f");
  next.metadata.creation_timestamp = "2026-11-30T12:00:03Z";
  auto pods = share_all(std::vector<pod>{before, other_set, next, same_second});
  auto* r = find_replacement(e, pods);
  BOOST_REQUIRE(r);
  BOOST_CHECK_EQUAL(r->metadata.name, "web-7d9f-first"); // the oldest new one
  auto v = judge_replacement(e, pods, e.evicted_at + 1min);
  BOOST_CHECK_EQUAL(v.reason, "RescheduledOffReplica: n1");
  // Claimed by another eviction of the same set: the next one answers for this one.
  v = judge_replacement(e, pods, e.evicted_at + 1min, 10min, {"uid-c"});
  BOOST_CHECK(v.state == replacement_state::successful);
  BOOST_CHECK_EQUAL(v.pod_name, "web-7d9f-second");
  // Both claimed: nothing yet.
  BOOST_CHECK(!find_replacement(e, pods, {"uid-c", "uid-d"}));
}

BOOST_AUTO_TEST_SUITE_END()
