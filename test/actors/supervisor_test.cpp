// supervisor actor: the in-flight buffer (parallelism), target spreading, stop, adoption
// and cool-off, driven through admission_request / migration_finished.
#include <boost/test/unit_test.hpp>

#include <map>

#include <caf/scoped_actor.hpp>

#include "actor_fixture.hpp"
#include "actors/supervisor_actor.hpp"

using namespace schedopt;
using namespace schedopt::test;
using namespace std::chrono_literals;

namespace {

using admission = std::shared_ptr<reply_slot<std::string>>;

struct supervisor_fixture : actor_fixture {
  void start(std::size_t parallelism, bool pin = true) {
    caf::scoped_actor parent{sys};
    supervisor_options opts;
    opts.parallelism = parallelism;
    opts.pin_target_node = pin;
    opts.cool_off_period = 1h;
    aut = track(spawn_supervisor(parent.ptr(), opts));
  }

  admission admit(const std::string& vm, std::vector<std::string> targets = {"n1", "n2"}) {
    return ask<std::string>(sys, aut, admission_request{"ns1", vm, std::move(targets), "", ""});
  }

  static std::size_t admitted(const std::vector<admission>& xs) {
    std::size_t n = 0;
    for (auto& x : xs)
      n += x->value.has_value();
    return n;
  }

  supervisor_actor aut;
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
      if (a->value && !a->value->empty()) {
        caf::anon_send(aut, migration_finished{"ns1", "vm" + std::to_string(i), *a->value});
        a->value = std::string{}; // mark finished
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
    ++per_target[*a->value];
  }
  BOOST_CHECK_EQUAL(per_target["n1"], 2);
  BOOST_CHECK_EQUAL(per_target["n2"], 2);
  // Free one slot toward n2: the next VM goes there although n1 sorts first.
  for (int i = 0; i < 4; ++i) {
    if (*asks[i]->value == "n2") {
      caf::anon_send(aut, migration_finished{"ns1", "vm" + std::to_string(i), "n2"});
      break;
    }
  }
  auto next = admit("vm9", {"n1", "n2"});
  sched.run();
  BOOST_REQUIRE(next->value);
  BOOST_CHECK_EQUAL(*next->value, "n2");
}

BOOST_AUTO_TEST_CASE(no_pinning_replies_empty_target) {
  start(2, false);
  auto a = admit("vm0");
  sched.run();
  BOOST_REQUIRE(a->value);
  BOOST_CHECK_EQUAL(*a->value, "");
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
  caf::anon_send(aut, migration_finished{"ns1", "vm0", *first->value});
  auto late = admit("vm3");
  sched.run();
  BOOST_REQUIRE(late->error);
  BOOST_CHECK(error_code(*late->error) == ec::cancelled);
}

BOOST_AUTO_TEST_CASE(adopted_migrations_count_in_flight_at_once) {
  start(2);
  auto a = ask<std::string>(sys, aut, admission_request{"ns1", "old1", {"n1", "n2"}, "old1-schedopt-x", "n2"});
  auto b = ask<std::string>(sys, aut, admission_request{"ns1", "old2", {"n1"}, "old2-schedopt-y", ""});
  sched.run();
  BOOST_REQUIRE(a->value);
  BOOST_REQUIRE(b->value);
  BOOST_CHECK_EQUAL(*a->value, "n2"); // the adopted VMIM's pinned node, not a new choice
  BOOST_CHECK_EQUAL(*b->value, "");
  auto fresh = admit("vm0", {"n1", "n2"});
  sched.run();
  BOOST_CHECK(!fresh->arrived()); // both slots are taken by adopted migrations
  caf::anon_send(aut, migration_finished{"ns1", "old2", ""});
  sched.run();
  BOOST_REQUIRE(fresh->value);
  BOOST_CHECK_EQUAL(*fresh->value, "n1"); // n2 still has the adopted inbound migration
}

BOOST_AUTO_TEST_CASE(a_vm_admitted_recently_is_cooling_off) {
  start(2);
  auto a = admit("vm0");
  sched.run();
  BOOST_REQUIRE(a->value);
  caf::anon_send(aut, migration_finished{"ns1", "vm0", *a->value});
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

BOOST_AUTO_TEST_SUITE_END()
