// The leader elector on CAF's deterministic test clock, against the mock API: it leads
// after creating the Lease, renews with one PUT a retry period and no GET (client-go's
// fast path), reads the Lease only after a renewal failed, steps down (and shuts the write
// gate) once renewals have failed for renewDeadline, and takes a Lease held by another
// replica only after it expired by local observation.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <caf/actor_clock.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actor_fixture.hpp"
#include "actors/leader_elector_actor.hpp"

using namespace schedopt;
using namespace schedopt::test;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

struct leadership_log {
  std::vector<std::pair<bool, caf::actor_clock::time_point>> changes; // leading?, test-clock time
};

leadership_subscriber_actor::behavior_type
recording(leadership_subscriber_actor::pointer self, std::shared_ptr<leadership_log> log) {
  return {
    [=](atom::started_leading) { log->changes.emplace_back(true, self->clock().now()); },
    [=](atom::stopped_leading) { log->changes.emplace_back(false, self->clock().now()); },
  };
}

leader_election_options options() {
  leader_election_options o;
  o.identity = "me";
  o.lease_duration = 3s;
  o.renew_deadline = 2s;
  o.retry_period = 500ms;
  return o;
}

struct elector_fixture : actor_fixture {
  std::shared_ptr<api_log> api = std::make_shared<api_log>();
  std::shared_ptr<leadership_log> log = std::make_shared<leadership_log>();
  std::string stored; // the Lease as the mock API server holds it ("" = none)
  bool fail_writes = false;
  bool conflict_once = false; // the next update answers 409, as after a racing renewal

  elector_fixture() {
    api->respond = [this](const api_call& c) -> api_answer {
      if (c.verb == "get")
        return stored.empty() ? api_answer{to_caf_error(ec::not_found, "leases not found")}
                              : api_answer{k8s::api_response{200, stored}};
      if (c.verb == "update" && conflict_once) {
        conflict_once = false;
        return to_caf_error(ec::conflict, "the object has been modified");
      }
      if ((c.verb == "create" || c.verb == "update") && fail_writes)
        return to_caf_error(ec::server_error, "etcdserver: request timed out");
      if (c.verb == "create" || c.verb == "update") {
        stored = c.body;
        return k8s::api_response{c.verb == "create" ? 201 : 200, stored};
      }
      return k8s::api_response{200, "{}"};
    };
  }

  std::shared_ptr<write_gate> gate; // set before start() to hand the elector one

  leader_elector_actor start() {
    auto o = options();
    o.writes = gate;
    auto elector = track(spawn_leader_elector(sys, track(spawn_mock_api(sys, api)), o));
    auto sub = track(sys.spawn(recording, log));
    caf::anon_send(elector, atom::subscribe_v, sub);
    sched.run();
    return elector;
  }

  json updates_holding(const std::string& holder) const {
    json out = json::array();
    for (auto& c : api->calls_of("update"))
      if (json::parse(c.body).value("/spec/holderIdentity"_json_pointer, std::string()) == holder)
        out.push_back(json::parse(c.body));
    return out;
  }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(leader_elector, elector_fixture)

BOOST_AUTO_TEST_CASE(leads_after_creating_the_lease_and_steps_down_when_renewals_fail) {
  start();
  advance(1s);
  BOOST_REQUIRE_EQUAL(log->changes.size(), 1u);
  BOOST_CHECK(log->changes[0].first);
  BOOST_CHECK_EQUAL(api->calls_of("create").size(), 1u);
  BOOST_CHECK_EQUAL(json::parse(stored)["spec"]["holderIdentity"], "me");

  // Renewals keep it leading.
  advance(3s);
  BOOST_CHECK_EQUAL(log->changes.size(), 1u);
  BOOST_CHECK_GE(api->calls_of("update").size(), 4u);

  // The API stops accepting writes: leadership ends once renewDeadline (2 s) has passed
  // since the last successful renewal, not before and not much later.
  fail_writes = true;
  auto failing_since = sched.clock().now();
  advance(4s);
  BOOST_REQUIRE_EQUAL(log->changes.size(), 2u);
  BOOST_CHECK(!log->changes[1].first);
  auto after_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    log->changes[1].second - failing_since).count();
  BOOST_TEST_MESSAGE("stepped down " << after_ms << " ms after writes began failing");
  BOOST_CHECK_GE(after_ms, 1500); // the last renewal was up to one retry period earlier
  BOOST_CHECK_LE(after_ms, 3000);
}

// client-go's tryAcquireOrRenew fast path: a leader whose observed record is valid sends
// one PUT of the Lease it last wrote per retry period, never a GET.
BOOST_AUTO_TEST_CASE(a_leader_renews_with_one_put_per_retry_period_and_no_get) {
  start();
  advance(1s);
  BOOST_REQUIRE_EQUAL(log->changes.size(), 1u);
  auto gets = api->calls_of("get").size();
  auto updates = api->calls_of("update").size();
  auto rv_before = json::parse(stored)["metadata"].value("resourceVersion", "");
  advance(5s); // ten retry periods
  BOOST_CHECK_EQUAL(api->calls_of("get").size(), gets);
  auto renewals = api->calls_of("update").size() - updates;
  BOOST_CHECK_GE(renewals, 9u);
  BOOST_CHECK_LE(renewals, 11u);
  BOOST_CHECK_EQUAL(api->calls_of("create").size(), 1u);
  // Each PUT is the Lease as last written: same holder, acquireTime and transitions, the
  // stored resourceVersion as its precondition, a fresh renewTime.
  auto calls = api->calls_of("update");
  auto last = json::parse(calls.back().body);
  auto before_last = json::parse(calls[calls.size() - 2].body);
  BOOST_CHECK_EQUAL(last["spec"]["holderIdentity"], "me");
  BOOST_CHECK_EQUAL(last["spec"]["acquireTime"], before_last["spec"]["acquireTime"]);
  BOOST_CHECK_EQUAL(last["spec"]["leaseTransitions"], before_last["spec"]["leaseTransitions"]);
  BOOST_CHECK_EQUAL(last["metadata"].value("resourceVersion", ""), rv_before);
  BOOST_CHECK_EQUAL(log->changes.size(), 1u);
}

// A renewal that conflicts (someone wrote the Lease since) falls back to GET and decides
// on the Lease as it is now, in the same round; still ours, so it renews and keeps leading.
BOOST_AUTO_TEST_CASE(a_conflicting_renewal_reads_the_lease_then_renews) {
  start();
  advance(1s);
  BOOST_REQUIRE_EQUAL(log->changes.size(), 1u);
  auto gets = api->calls_of("get").size();
  auto updates = api->calls_of("update").size();
  conflict_once = true;
  advance(500ms);
  BOOST_CHECK_EQUAL(api->calls_of("get").size(), gets + 1);
  BOOST_CHECK_EQUAL(api->calls_of("update").size(), updates + 2); // the 409, then the renewal
  advance(2s);
  BOOST_CHECK_EQUAL(api->calls_of("get").size(), gets + 1); // back on the fast path
  BOOST_CHECK_EQUAL(log->changes.size(), 1u);
}

// The gate the controller's writes pass: open from the first renewal until its start
// plus renewDeadline, shut when the deadline passes without another.
BOOST_AUTO_TEST_CASE(the_write_gate_shuts_when_the_renew_deadline_passes) {
  gate = std::make_shared<write_gate>();
  BOOST_CHECK(!gate->is_open(sched.clock().now()));
  start();
  advance(1s);
  BOOST_REQUIRE_EQUAL(log->changes.size(), 1u);
  BOOST_CHECK(gate->is_open(sched.clock().now()));
  fail_writes = true;
  auto failing_since = sched.clock().now();
  // Open for at most renewDeadline after the last renewal, which was before the failures.
  BOOST_CHECK(!gate->is_open(failing_since + 2s));
  advance(1s);
  BOOST_CHECK(gate->is_open(sched.clock().now()));
  advance(1500ms);
  BOOST_CHECK(!gate->is_open(sched.clock().now()));
  BOOST_REQUIRE_EQUAL(log->changes.size(), 2u);
  BOOST_CHECK(!log->changes[1].first);
  // The step-down came with the deadline (to the test clock's 100 ms steps), not at a
  // later retry tick.
  BOOST_CHECK(log->changes[1].second - failing_since <= 2s);
}

BOOST_AUTO_TEST_CASE(a_lease_held_elsewhere_is_taken_only_after_it_expired_locally) {
  stored = json{{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", {{"name", "schedopt-leader"}, {"namespace", "default"},
                              {"resourceVersion", "5"}}},
                {"spec", {{"holderIdentity", "other"}, {"leaseDurationSeconds", 3},
                          {"acquireTime", "2026-11-30T10:00:00.000000Z"},
                          {"renewTime", "2026-11-30T10:00:00.000000Z"},
                          {"leaseTransitions", 4}}}}
             .dump();
  start();
  // The renewTime lies in the past by wall time, but expiry is judged from when this
  // replica first saw that record: not before 3 s of unchanged record.
  advance(2500ms);
  BOOST_CHECK(log->changes.empty());
  BOOST_CHECK_EQUAL(updates_holding("me").size(), 0u);
  advance(1500ms);
  auto taken = updates_holding("me");
  BOOST_REQUIRE_GE(taken.size(), 1u);
  BOOST_CHECK_EQUAL(taken[0]["spec"]["leaseTransitions"], 5);
  BOOST_REQUIRE_EQUAL(log->changes.size(), 1u);
  BOOST_CHECK(log->changes[0].first);
}

// SIGTERM's release raced a renewal (409): it re-reads the Lease and releases it as it is.
BOOST_AUTO_TEST_CASE(a_release_that_conflicts_is_retried_on_the_current_lease) {
  auto elector = start();
  advance(1s);
  BOOST_REQUIRE_EQUAL(log->changes.size(), 1u);
  conflict_once = true;
  auto released = ask<bool>(sys, elector, atom::release_v);
  sched.run();
  BOOST_REQUIRE(released->value.has_value());
  BOOST_CHECK(*released->value);
  auto lease = json::parse(stored);
  BOOST_CHECK_EQUAL(lease["spec"].value("holderIdentity", ""), "");
  BOOST_CHECK_EQUAL(lease["spec"]["leaseDurationSeconds"], 1);
  BOOST_REQUIRE_EQUAL(log->changes.size(), 2u);
  BOOST_CHECK(!log->changes[1].first);
}

BOOST_AUTO_TEST_SUITE_END()
