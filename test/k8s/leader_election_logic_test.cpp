// client-go leader election decisions with explicit clocks.
#include <boost/test/unit_test.hpp>

#include "k8s/leader_election.hpp"

using namespace std::chrono_literals;
using schedopt::k8s::lease_decision;
using schedopt::k8s::leader_election_logic;

namespace {

schedopt::lease held_by(const std::string& who, const std::string& rv, const std::string& renew) {
  schedopt::lease l;
  l.metadata.name = "schedopt-leader";
  l.metadata.namespace_ = "ns";
  l.metadata.resource_version = rv;
  l.holder_identity = who;
  l.lease_duration_seconds = 15;
  l.renew_time = renew;
  l.lease_transitions = 3;
  return l;
}

} // namespace

BOOST_AUTO_TEST_CASE(leader_election_creates_missing_lease) {
  leader_election_logic a{"a", "ns", "schedopt-leader", {}};
  auto t = std::chrono::steady_clock::time_point{} + 100s;
  auto d = a.decide(std::nullopt, t, std::chrono::system_clock::now());
  BOOST_CHECK(d.action == lease_decision::create);
  BOOST_CHECK_EQUAL(d.record.holder_identity, "a");
  BOOST_CHECK_EQUAL(d.record.lease_duration_seconds, 15);
  BOOST_CHECK_EQUAL(d.record.lease_transitions, 0);
  a.written(d.record, t);
  BOOST_CHECK(a.is_leader());
}

BOOST_AUTO_TEST_CASE(leader_election_takes_over_only_after_local_expiry) {
  leader_election_logic b{"b", "ns", "schedopt-leader", {}};
  auto t = std::chrono::steady_clock::time_point{} + 100s;
  auto wall = std::chrono::system_clock::now();
  auto l = held_by("a", "10", "2020-01-01T00:00:00.000000Z"); // old renewTime: ignored
  BOOST_CHECK(b.decide(l, t, wall).action == lease_decision::wait);
  BOOST_CHECK(b.decide(l, t + 14s, wall).action == lease_decision::wait);
  // The holder renews: the expiry clock restarts.
  auto renewed = held_by("a", "11", "2020-01-01T00:00:10.000000Z");
  BOOST_CHECK(b.decide(renewed, t + 14s, wall).action == lease_decision::wait);
  BOOST_CHECK(b.decide(renewed, t + 28s, wall).action == lease_decision::wait);
  auto d = b.decide(renewed, t + 29100ms, wall);
  BOOST_REQUIRE(d.action == lease_decision::update);
  BOOST_CHECK_EQUAL(d.record.holder_identity, "b");
  BOOST_CHECK_EQUAL(d.record.lease_transitions, 4);
  BOOST_CHECK_EQUAL(d.record.metadata.resource_version, "11"); // optimistic PUT
}

BOOST_AUTO_TEST_CASE(leader_election_renewal_keeps_acquire_time_and_transitions) {
  leader_election_logic a{"a", "ns", "schedopt-leader", {}};
  auto t = std::chrono::steady_clock::time_point{} + 100s;
  auto l = held_by("a", "10", "x");
  l.acquire_time = "2026-01-01T00:00:00.000000Z";
  a.written(l, t);
  auto d = a.decide(l, t + 2s, std::chrono::system_clock::now());
  BOOST_REQUIRE(d.action == lease_decision::update);
  BOOST_CHECK_EQUAL(d.record.acquire_time, "2026-01-01T00:00:00.000000Z");
  BOOST_CHECK_EQUAL(d.record.lease_transitions, 3);
}

BOOST_AUTO_TEST_CASE(leader_election_released_lease_is_free_and_release_record) {
  leader_election_logic a{"a", "ns", "schedopt-leader", {}};
  auto t = std::chrono::steady_clock::time_point{} + 100s;
  a.written(held_by("a", "10", "x"), t);
  auto rel = a.release_record(std::chrono::system_clock::now());
  BOOST_REQUIRE(rel.has_value());
  BOOST_CHECK(rel->holder_identity.empty());
  BOOST_CHECK_EQUAL(rel->lease_duration_seconds, 1);
  leader_election_logic b{"b", "ns", "schedopt-leader", {}};
  auto d = b.decide(*rel, t, std::chrono::system_clock::now());
  BOOST_CHECK(d.action == lease_decision::update);
  BOOST_CHECK_EQUAL(d.record.lease_transitions, 4);
  leader_election_logic idle{"c", "ns", "schedopt-leader", {}};
  BOOST_CHECK(!idle.release_record(std::chrono::system_clock::now()).has_value());
}

// client-go's fast path: a leader renews from the Lease it last wrote, without a read,
// until its observed record has expired; a replica that does not lead never does.
BOOST_AUTO_TEST_CASE(leader_election_fast_path_renews_the_last_written_lease) {
  leader_election_logic a{"a", "ns", "schedopt-leader", {}};
  auto t = std::chrono::steady_clock::time_point{} + 100s;
  auto wall = std::chrono::system_clock::now();
  BOOST_CHECK(!a.renewal(t, wall)); // nothing written yet
  auto stored = held_by("a", "42", "2026-01-01T00:00:00.000000Z");
  stored.acquire_time = "2026-01-01T00:00:00.000000Z";
  a.written(stored, t);
  auto r = a.renewal(t + 2s, wall);
  BOOST_REQUIRE(r);
  BOOST_CHECK_EQUAL(r->metadata.resource_version, "42"); // the PUT's precondition
  BOOST_CHECK_EQUAL(r->holder_identity, "a");
  BOOST_CHECK_EQUAL(r->acquire_time, "2026-01-01T00:00:00.000000Z");
  BOOST_CHECK_EQUAL(r->lease_transitions, 3);
  BOOST_CHECK_NE(r->renew_time, stored.renew_time);
  // isLeaseValid: past the observed record's 15 s the slow path (GET) applies.
  BOOST_CHECK(a.renewal(t + 14900ms, wall));
  BOOST_CHECK(!a.renewal(t + 15s, wall));
  a.lost();
  BOOST_CHECK(!a.renewal(t + 2s, wall));
  leader_election_logic b{"b", "ns", "schedopt-leader", {}};
  b.written(stored, t); // a write that shows someone else holding it
  BOOST_CHECK(!b.is_leader());
  BOOST_CHECK(!b.renewal(t + 1s, wall));
}
