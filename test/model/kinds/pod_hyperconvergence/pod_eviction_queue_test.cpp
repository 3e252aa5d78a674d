// maxParallelEvictions (eviction_queue.hpp): slots held until the replacement settles,
// given back by a blocked eviction, which waits its backoff behind the others.
#include <boost/test/unit_test.hpp>

#include "model/kinds/pod_hyperconvergence/eviction_queue.hpp"
#include "model/kinds/pod_hyperconvergence/pod_test_world.hpp"

using namespace schedopt;
using namespace schedopt::test::pods;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(pod_eviction_queue)

BOOST_AUTO_TEST_CASE(at_most_capacity_evictions_await_their_replacement) {
  auto now = at("2026-11-30T12:00:00Z");
  eviction_queue q{2};
  for (auto k : {"ns/a", "ns/b", "ns/c"})
    BOOST_CHECK(q.push(k));
  BOOST_CHECK(!q.push("ns/a")); // already waiting
  BOOST_CHECK_EQUAL(*q.next_admittable(now), "ns/a");
  BOOST_CHECK_EQUAL(*q.next_admittable(now), "ns/b");
  BOOST_CHECK(!q.next_admittable(now)); // both slots held
  BOOST_CHECK(!q.push("ns/b"));         // in flight
  BOOST_CHECK_EQUAL(q.in_flight(), 2u);
  q.finish("ns/a"); // its replacement is Ready
  BOOST_CHECK_EQUAL(*q.next_admittable(now), "ns/c");
  q.finish("ns/b");
  q.finish("ns/c");
  BOOST_CHECK(q.idle());
}

BOOST_AUTO_TEST_CASE(a_blocked_eviction_gives_its_slot_back_and_waits_its_turn) {
  auto now = at("2026-11-30T12:00:00Z");
  eviction_queue q{1};
  q.push("ns/a");
  q.push("ns/b");
  BOOST_CHECK_EQUAL(*q.next_admittable(now), "ns/a");
  q.defer("ns/a", now + 10s); // 429
  BOOST_CHECK_EQUAL(q.in_flight(), 0u);
  BOOST_CHECK_EQUAL(*q.next_admittable(now), "ns/b"); // not held up by a's budget
  q.finish("ns/b");
  BOOST_CHECK(!q.next_admittable(now + 9s)); // a is not due yet
  BOOST_CHECK(*q.next_due() == now + 10s);
  BOOST_CHECK_EQUAL(*q.next_admittable(now + 10s), "ns/a");
}

BOOST_AUTO_TEST_CASE(adopted_evictions_take_slots_and_waiting_ones_can_be_taken_out) {
  auto now = at("2026-11-30T12:00:00Z");
  eviction_queue q{2};
  q.push("ns/a");
  q.push("ns/b");
  q.push("ns/c");
  q.mark_in_flight("ns/b"); // evicted before a restart
  BOOST_CHECK(q.is_in_flight("ns/b"));
  BOOST_CHECK_EQUAL(q.waiting(), 2u);
  BOOST_CHECK_EQUAL(*q.next_admittable(now), "ns/a");
  BOOST_CHECK(!q.next_admittable(now));
  q.set_capacity(0); // at least one
  BOOST_CHECK_EQUAL(q.capacity(), 1u);
  auto left = q.take_waiting(); // the window closed
  BOOST_CHECK(left == std::vector<std::string>{"ns/c"});
  BOOST_CHECK(!q.next_due());
  BOOST_CHECK_EQUAL(q.in_flight(), 2u);
}

BOOST_AUTO_TEST_SUITE_END()
