// docs/design.md §3.4 parallelism: clamp cases and the admission queue's FIFO/backpressure.
#include <boost/test/unit_test.hpp>

#include "model/placement/parallelism.hpp"

using namespace schedopt;

BOOST_AUTO_TEST_SUITE(parallelism_clamp)

BOOST_AUTO_TEST_CASE(clamp_table) {
  struct row {
    std::optional<int64_t> requested;
    int64_t def;
    int64_t limit;
    int64_t effective;
    bool clamped;
    std::string message;
  };
  const std::vector<row> rows = {
    {std::nullopt, 5, 50, 5, false, ""},
    {10, 5, 50, 10, false, ""},
    {50, 5, 50, 50, false, ""},
    {1, 5, 50, 1, false, ""},
    {500, 5, 50, 50, true, "maxParallelMigrations 500 clamped to 50"},
    {0, 5, 50, 1, true, "maxParallelMigrations 0 clamped to 1"},
    {-3, 5, 50, 1, true, "maxParallelMigrations -3 clamped to 1"},
    {std::nullopt, 80, 50, 50, true, "maxParallelMigrations 80 clamped to 50"},
    {7, 5, 0, 1, true, "maxParallelMigrations 7 clamped to 1"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("requested " << (r.requested ? std::to_string(*r.requested) : "absent")
                                    << " default " << r.def << " limit " << r.limit) {
      auto p = clamp_parallelism(r.requested, r.def, r.limit);
      BOOST_CHECK_EQUAL(p.effective, r.effective);
      BOOST_CHECK_EQUAL(p.clamped, r.clamped);
      BOOST_CHECK_EQUAL(p.message, r.message);
    }
  }
}

BOOST_AUTO_TEST_CASE(admission_is_fifo_and_bounded) {
  admission_queue q(2);
  for (auto k : {"a", "b", "c", "d"})
    BOOST_CHECK(q.push(k));
  BOOST_CHECK(!q.push("a")); // duplicate while queued
  BOOST_CHECK_EQUAL(*q.next_admittable(), "a");
  BOOST_CHECK_EQUAL(*q.next_admittable(), "b");
  BOOST_CHECK(!q.next_admittable()); // full
  BOOST_CHECK_EQUAL(q.in_flight(), 2u);
  BOOST_CHECK_EQUAL(q.waiting(), 2u);
  BOOST_CHECK(!q.push("b")); // duplicate while in flight
  q.finish("b");
  BOOST_CHECK_EQUAL(*q.next_admittable(), "c");
  BOOST_CHECK(!q.next_admittable());
  q.finish("a");
  q.finish("c");
  BOOST_CHECK_EQUAL(*q.next_admittable(), "d");
  BOOST_CHECK(!q.next_admittable()); // empty
  q.finish("d");
  BOOST_CHECK(q.idle());
}

BOOST_AUTO_TEST_CASE(adopted_migrations_take_slots) {
  admission_queue q(2);
  q.push("x");
  q.push("y");
  q.mark_in_flight("x"); // adopted on resume: leaves the queue
  q.mark_in_flight("z");
  BOOST_CHECK_EQUAL(q.in_flight(), 2u);
  BOOST_CHECK_EQUAL(q.waiting(), 1u);
  BOOST_CHECK(!q.next_admittable());
  q.finish("z");
  BOOST_CHECK_EQUAL(*q.next_admittable(), "y");
}

BOOST_AUTO_TEST_CASE(clear_waiting_keeps_in_flight) {
  admission_queue q(1);
  q.push("a");
  q.push("b");
  q.next_admittable();
  q.clear_waiting();
  BOOST_CHECK_EQUAL(q.waiting(), 0u);
  BOOST_CHECK_EQUAL(q.in_flight(), 1u);
  BOOST_CHECK(!q.idle());
  BOOST_CHECK(q.push("b")); // can be queued again after clearing
}

BOOST_AUTO_TEST_CASE(zero_capacity_still_admits_one) {
  admission_queue q(0);
  BOOST_CHECK_EQUAL(q.capacity(), 1u);
  q.push("a");
  BOOST_CHECK(q.next_admittable().has_value());
}

// KubeVirt's parallelOutboundMigrationsPerNode: a full source node's candidates wait in
// schedopt's queue while those of other nodes go ahead, in FIFO order otherwise.
BOOST_AUTO_TEST_CASE(a_full_source_node_does_not_block_the_others) {
  admission_queue q(10);
  q.set_per_source_limit(2);
  for (auto k : {"a1", "a2", "a3", "a4"})
    q.push(k, "node-a");
  q.push("b1", "node-b");
  q.push("u1"); // source unknown: never limited
  BOOST_CHECK_EQUAL(*q.next_admittable(), "a1");
  BOOST_CHECK_EQUAL(*q.next_admittable(), "a2");
  BOOST_CHECK_EQUAL(*q.next_admittable(), "b1");
  BOOST_CHECK_EQUAL(*q.next_admittable(), "u1");
  BOOST_CHECK(!q.next_admittable()); // a3, a4 wait for node-a
  BOOST_CHECK_EQUAL(q.in_flight_from("node-a"), 2u);
  BOOST_CHECK_EQUAL(q.waiting(), 2u);
  q.finish("b1");
  BOOST_CHECK(!q.next_admittable());
  q.finish("a2");
  BOOST_CHECK_EQUAL(*q.next_admittable(), "a3");
  BOOST_CHECK(!q.next_admittable());
}

BOOST_AUTO_TEST_CASE(adopted_migrations_count_against_their_source_node) {
  admission_queue q(10);
  q.set_per_source_limit(1);
  q.mark_in_flight("adopted", "node-a");
  q.push("next", "node-a");
  BOOST_CHECK(!q.next_admittable());
  q.finish("adopted");
  BOOST_CHECK_EQUAL(*q.next_admittable(), "next");
}

// KubeVirt's configuration is followed live: a lower cap admits nothing until enough
// finish; held (KubeVirt's own migrations wait) admits nothing at all.
BOOST_AUTO_TEST_CASE(capacity_limit_and_hold_change_live) {
  admission_queue q(3);
  for (auto k : {"a", "b", "c", "d"})
    q.push(k, k);
  BOOST_CHECK(q.next_admittable());
  BOOST_CHECK(q.next_admittable());
  q.set_capacity(1);
  BOOST_CHECK(!q.next_admittable());
  q.finish("a");
  BOOST_CHECK(!q.next_admittable()); // b still fills the one slot
  q.finish("b");
  q.set_held(true);
  BOOST_CHECK(!q.next_admittable());
  q.set_held(false);
  BOOST_CHECK_EQUAL(*q.next_admittable(), "c");
  q.set_capacity(0);
  BOOST_CHECK_EQUAL(q.capacity(), 1u);
}

BOOST_AUTO_TEST_SUITE_END()
