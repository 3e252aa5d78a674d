// supervisor actor: the in-flight buffer (parallelism), target spreading, stop, adoption
// and cool-off, driven through admission_request / migration_finished.
#include <boost/test/unit_test.hpp>

#include <map>

#include <caf/scoped_actor.hpp>

#include "actor_fixture.hpp"
#include "actors/kubevirt_policy_actor.hpp"
#include "actors/kinds/vm_hyperconvergence/supervisor_actor.hpp"

using namespace schedopt;
using namespace schedopt::test;
using namespace std::chrono_literals;

namespace {

using admission = std::shared_ptr<reply_slot<admission_grant>>;

struct supervisor_fixture : actor_fixture {
  yield_mode yield_to_kubevirt = yield_mode::automatic; // yieldToKubevirt
  void start(std::size_t parallelism, bool pin = true, bool follow_kubevirt = false,
             bool explicit_parallelism = false) {
    caf::scoped_actor parent{sys};
    supervisor_options opts;
    opts.parallelism = parallelism;
    opts.parallelism_explicit = explicit_parallelism;
    opts.pin_target_node = pin;
    opts.yield_to_kubevirt = yield_to_kubevirt;
    opts.cool_off_period = 1h;
    if (follow_kubevirt) {
      crs = std::make_shared<informer_log<kubevirt_cr>>();
      vmims = std::make_shared<informer_log<virtual_machine_instance_migration>>();
      nodes = std::make_shared<informer_log<node>>();
      policy = track(spawn_kubevirt_policy(sys, track(spawn_mock_informer(sys, crs)),
                                           track(spawn_mock_informer(sys, vmims)),
                                           track(spawn_mock_informer(sys, nodes))));
      opts.kubevirt = policy;
      sched.run(); // the policy subscribed to its informers
      for (auto& n : nodes_before_run)
        nodes->push_added(n);
      sched.run();
    }
    aut = track(spawn_supervisor(parent.ptr(), opts));
  }

  admission admit(const std::string& vm, std::vector<std::string> targets = {"n1", "n2"},
                  std::string source = "") {
    return ask<admission_grant>(sys, aut,
                                admission_request{"ns1", vm, std::move(targets), source, "", ""});
  }

  /// KubeVirt's CR as its operator writes it.
  void kubevirt_says(int64_t per_cluster, int64_t per_node, std::string version = "v1.6.0") {
    kubevirt_cr cr;
    cr.metadata.namespace_ = "kubevirt";
    cr.metadata.name = "kubevirt";
    cr.parallel_migrations_per_cluster = per_cluster;
    cr.parallel_outbound_migrations_per_node = per_node;
    cr.observed_version = std::move(version);
    crs->push_added(cr);
    sched.run();
  }

  /// Whether a Pending evacuation holds back a candidate's admission.
  bool evacuation_holds(yield_mode mode, std::string version) {
    yield_to_kubevirt = mode;
    start(5, true, true);
    kubevirt_says(5, 2, std::move(version));
    vmims->push_added(evacuation("Pending"));
    sched.run();
    auto a = admit("a", {"n1"}, "s1");
    sched.run();
    return !a->arrived();
  }

  static virtual_machine_instance_migration evacuation(std::string phase) {
    virtual_machine_instance_migration m;
    m.metadata.namespace_ = "ns1";
    m.metadata.name = "kubevirt-evacuation-abcde";
    m.metadata.annotations["kubevirt.io/evacuationMigration"] = "n9";
    m.phase = std::move(phase);
    return m;
  }

  static std::size_t admitted(const std::vector<admission>& xs) {
    std::size_t n = 0;
    for (auto& x : xs)
      n += x->value.has_value();
    return n;
  }

  supervisor_actor aut;
  kubevirt_policy_actor policy;
  std::shared_ptr<informer_log<kubevirt_cr>> crs;
  std::shared_ptr<informer_log<virtual_machine_instance_migration>> vmims;
  std::shared_ptr<informer_log<node>> nodes;
  std::vector<node> nodes_before_run; // known to the policy before the supervisor starts
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(supervisor, supervisor_fixture)

BOOST_AUTO_TEST_CASE(parallelism_bounds_admissions_and_each_finish_admits_the_next) {
  start(2);
  std::vector<admission> asks;
  for (int i = 0; i < 5; ++i)
    asks.push_back(admit("vm" + std::to_string(i)));
  sched.run();
  BOOST_CHECK_EQUAL(admitted(asks), 2u);
  for (auto& a : asks)
    BOOST_CHECK(!a->error); // waiting, not refused
  for (std::size_t expected = 3; expected <= 5; ++expected) {
    // Finish one admitted VM whose slot is still held.
    for (int i = 0; i < 5; ++i) {
      auto& a = asks[i];
      if (a->value && !a->value->target.empty()) {
        caf::anon_send(aut, migration_finished{"ns1", "vm" + std::to_string(i), a->value->target});
        a->value->target.clear(); // mark finished
        break;
      }
    }
    sched.run();
    BOOST_CHECK_EQUAL(admitted(asks), expected);
  }
}

BOOST_AUTO_TEST_CASE(targets_spread_over_fewest_inbound) {
  start(4);
  std::vector<admission> asks;
  for (int i = 0; i < 4; ++i)
    asks.push_back(admit("vm" + std::to_string(i), {"n1", "n2"}));
  sched.run();
  std::map<std::string, int> per_target;
  for (auto& a : asks) {
    BOOST_REQUIRE(a->value);
    ++per_target[a->value->target];
  }
  BOOST_CHECK_EQUAL(per_target["n1"], 2);
  BOOST_CHECK_EQUAL(per_target["n2"], 2);
  // Free one slot toward n2: the next VM goes there although n1 sorts first.
  for (int i = 0; i < 4; ++i) {
    if (asks[i]->value->target == "n2") {
      caf::anon_send(aut, migration_finished{"ns1", "vm" + std::to_string(i), "n2"});
      break;
    }
  }
  auto next = admit("vm9", {"n1", "n2"});
  sched.run();
  BOOST_REQUIRE(next->value);
  BOOST_CHECK_EQUAL(next->value->target, "n2");
}

BOOST_AUTO_TEST_CASE(no_pinning_replies_empty_target) {
  start(2, false);
  auto a = admit("vm0");
  sched.run();
  BOOST_REQUIRE(a->value);
  BOOST_CHECK_EQUAL(a->value->target, "");
}

BOOST_AUTO_TEST_CASE(stop_fails_waiting_requests_and_keeps_in_flight_ones) {
  start(1);
  auto first = admit("vm0");
  auto second = admit("vm1");
  auto third = admit("vm2");
  sched.run();
  BOOST_REQUIRE(first->value);
  BOOST_CHECK(!second->arrived());
  caf::anon_send(aut, atom::stop_v);
  sched.run();
  BOOST_REQUIRE(second->error);
  BOOST_REQUIRE(third->error);
  BOOST_CHECK(error_code(*second->error) == ec::cancelled);
  BOOST_CHECK(error_code(*third->error) == ec::cancelled);
  BOOST_CHECK(first->value); // the in-flight one keeps its admission
  // After stop nothing new is admitted, even once the slot frees up.
  caf::anon_send(aut, migration_finished{"ns1", "vm0", first->value->target});
  auto late = admit("vm3");
  sched.run();
  BOOST_REQUIRE(late->error);
  BOOST_CHECK(error_code(*late->error) == ec::cancelled);
}

BOOST_AUTO_TEST_CASE(adopted_migrations_count_in_flight_at_once) {
  start(2);
  auto a = ask<admission_grant>(sys, aut, admission_request{"ns1", "old1", {"n1", "n2"}, "s1", "old1-schedopt-x", "n2"});
  auto b = ask<admission_grant>(sys, aut, admission_request{"ns1", "old2", {"n1"}, "s1", "old2-schedopt-y", ""});
  sched.run();
  BOOST_REQUIRE(a->value);
  BOOST_REQUIRE(b->value);
  BOOST_CHECK_EQUAL(a->value->target, "n2"); // the adopted VMIM's pinned node, not a new choice
  BOOST_CHECK_EQUAL(b->value->target, "");
  auto fresh = admit("vm0", {"n1", "n2"});
  sched.run();
  BOOST_CHECK(!fresh->arrived()); // both slots are taken by adopted migrations
  caf::anon_send(aut, migration_finished{"ns1", "old2", ""});
  sched.run();
  BOOST_REQUIRE(fresh->value);
  BOOST_CHECK_EQUAL(fresh->value->target, "n1"); // n2 still has the adopted inbound migration
}

BOOST_AUTO_TEST_CASE(a_vm_admitted_recently_is_cooling_off) {
  start(2);
  auto a = admit("vm0");
  sched.run();
  BOOST_REQUIRE(a->value);
  caf::anon_send(aut, migration_finished{"ns1", "vm0", a->value->target});
  sched.run();
  auto again = admit("vm0");
  sched.run();
  BOOST_REQUIRE(again->error);
  BOOST_CHECK_NE(error_message(*again->error).find("cooling off"), std::string::npos);
  sched.advance_time(std::chrono::minutes(61));
  auto later = admit("vm0");
  sched.run();
  BOOST_CHECK(later->value);
}

// docs/design.md §3.2: the built-in default buffer is at most parallelMigrationsPerCluster, and
// follows the CR live; nothing is admitted before the policy has spoken.
BOOST_AUTO_TEST_CASE(the_default_buffer_follows_parallel_migrations_per_cluster) {
  start(5, true, true);
  kubevirt_says(2, 10);
  std::vector<admission> asks;
  for (int i = 0; i < 4; ++i)
    asks.push_back(admit("vm" + std::to_string(i), {"n1"}, "s" + std::to_string(i)));
  sched.run();
  BOOST_CHECK_EQUAL(admitted(asks), 2u);
  BOOST_CHECK_EQUAL(asks[0]->value->kubevirt.limits.parallel_migrations_per_cluster, 2);
  kubevirt_says(3, 10); // an update: the next admission follows it
  BOOST_CHECK_EQUAL(admitted(asks), 3u);
}

BOOST_AUTO_TEST_CASE(an_explicit_buffer_is_honoured_above_kubevirts_cap) {
  start(4, true, true, true);
  kubevirt_says(2, 10);
  std::vector<admission> asks;
  for (int i = 0; i < 5; ++i)
    asks.push_back(admit("vm" + std::to_string(i), {"n1"}, "s" + std::to_string(i)));
  sched.run();
  BOOST_CHECK_EQUAL(admitted(asks), 4u);
}

// parallelOutboundMigrationsPerNode: the third VM of node s1 waits; s2's goes ahead.
BOOST_AUTO_TEST_CASE(at_most_outbound_per_node_leave_one_source_node) {
  start(5, true, true);
  kubevirt_says(5, 2);
  auto a = admit("a", {"n1"}, "s1");
  auto b = admit("b", {"n1"}, "s1");
  auto c = admit("c", {"n1"}, "s1");
  auto d = admit("d", {"n1"}, "s2");
  sched.run();
  BOOST_CHECK(a->value && b->value && d->value);
  BOOST_CHECK(!c->arrived());
  caf::anon_send(aut, migration_finished{"ns1", "a", "n1"});
  sched.run();
  BOOST_CHECK(c->value);
}

// docs/design.md §3.3: while an evacuation VMIM waits in Pending (or has no phase yet)
// nothing is admitted; once it runs, admission resumes.
BOOST_AUTO_TEST_CASE(kubevirts_waiting_migrations_hold_admission) {
  start(5, true, true);
  kubevirt_says(5, 2);
  auto pending = evacuation("Pending");
  vmims->push_added(pending);
  sched.run();
  auto a = admit("a", {"n1"}, "s1");
  sched.run();
  BOOST_CHECK(!a->arrived());
  auto ours = evacuation("Pending");
  ours.metadata.name = "a-schedopt-x";
  ours.metadata.labels["app.kubernetes.io/managed-by"] = "schedopt";
  vmims->push_added(ours); // schedopt's own Pending VMIM holds nothing back
  sched.run();
  BOOST_CHECK(!a->arrived());
  auto running = evacuation("Running");
  vmims->push_updated(pending, running);
  sched.run();
  BOOST_CHECK(a->value);
}

// yieldToKubevirt: auto holds admissions for KubeVirt's waiting migrations unless its
// priority queue orders them (1.9; 1.8 with the gate listed); true always holds, false
// never (docs/kubevirt-versions.md has the drain figures behind the default).
BOOST_AUTO_TEST_CASE(auto_yields_on_1_6) { BOOST_CHECK(evacuation_holds(yield_mode::automatic, "v1.6.0")); }
BOOST_AUTO_TEST_CASE(auto_does_not_yield_on_1_9) {
  BOOST_CHECK(!evacuation_holds(yield_mode::automatic, "v1.9.0"));
}
BOOST_AUTO_TEST_CASE(true_yields_on_1_9) { BOOST_CHECK(evacuation_holds(yield_mode::always, "v1.9.0")); }
BOOST_AUTO_TEST_CASE(false_never_yields) { BOOST_CHECK(!evacuation_holds(yield_mode::never, "v1.6.0")); }

// A KubeVirt older than 1.6 prunes spec.addedNodeSelector: the run starts unpinned.
BOOST_AUTO_TEST_CASE(kubevirt_before_1_6_starts_the_run_unpinned) {
  start(5, true, true);
  kubevirt_says(5, 2, "v1.5.2");
  auto a = admit("a", {"n1"}, "s1");
  sched.run();
  BOOST_REQUIRE(a->value);
  BOOST_CHECK_EQUAL(a->value->target, "");
  BOOST_CHECK_EQUAL(a->value->kubevirt.limits.version, "v1.5.2");
}

// A drain that begins after evaluation closes nodes the run meant to target: an open one
// is chosen, and a candidate whose every target closed ends Skipped, never pinned there.
// A node cordoned before the run began was seen by its evaluation: VMs on it are still
// moved off it, as for any candidate.
BOOST_AUTO_TEST_CASE(a_vm_on_a_node_cordoned_before_the_run_is_still_moved) {
  node cordoned;
  cordoned.metadata.name = "n2";
  cordoned.unschedulable = true;
  nodes_before_run.push_back(cordoned);
  start(5, true, true);
  kubevirt_says(5, 5);
  auto d = admit("d", {"n3"}, "n2");
  sched.run();
  BOOST_REQUIRE(d->value);
  BOOST_CHECK_EQUAL(d->value->target, "n3");
  BOOST_CHECK(d->value->refused.empty());
}

BOOST_AUTO_TEST_CASE(nodes_cordoned_since_evaluation_are_never_targets) {
  start(5, true, true);
  kubevirt_says(5, 5);
  node n1;
  n1.metadata.name = "n1";
  n1.unschedulable = true; // kubectl drain cordons first
  nodes->push_added(n1);
  node n2;
  n2.metadata.name = "n2";
  n2.taints.push_back({"kubevirt.io/drain", "", "NoSchedule"});
  nodes->push_added(n2);
  sched.run();
  auto a = admit("a", {"n1", "n3"}, "s1");
  auto b = admit("b", {"n1", "n2"}, "s2");
  sched.run();
  BOOST_REQUIRE(a->value);
  BOOST_CHECK_EQUAL(a->value->target, "n3");
  BOOST_CHECK(a->value->refused.empty());
  BOOST_REQUIRE(b->value);
  BOOST_CHECK_EQUAL(b->value->target, "");
  BOOST_CHECK_EQUAL(b->value->refused, "every target node is now cordoned or being drained: n1, n2");
  // Uncordoned: a target again.
  auto open = n1;
  open.unschedulable = false;
  nodes->push_updated(n1, open);
  sched.run();
  auto c = admit("c", {"n1"}, "s3");
  sched.run();
  BOOST_REQUIRE(c->value);
  BOOST_CHECK_EQUAL(c->value->target, "n1");
  // A VM whose node closed during the run (a drain) is KubeVirt's to move.
  node n4;
  n4.metadata.name = "n4";
  nodes->push_added(n4);
  auto closing = n4;
  closing.unschedulable = true;
  nodes->push_updated(n4, closing);
  sched.run();
  auto e = admit("e", {"n3"}, "n4");
  sched.run();
  BOOST_REQUIRE(e->value);
  BOOST_CHECK_EQUAL(e->value->target, "");
  BOOST_CHECK_EQUAL(e->value->refused, "its node n4 is now cordoned or being drained");
}

BOOST_AUTO_TEST_SUITE_END()
