// Leader election with two electors against one simulator, and the event recorder's
// aggregation and namespaces.
#include <boost/test/unit_test.hpp>

#include <mutex>
#include <thread>

#include <caf/typed_event_based_actor.hpp>
#include <nlohmann/json.hpp>

#include "actors/event_recorder_actor.hpp"
#include "actors/leader_elector_actor.hpp"
#include "model/decode.hpp"
#include "sim/wire_http.hpp"
#include "sim_client_fixture.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
using schedopt::error_message;
namespace k8s = schedopt::k8s;
namespace res = schedopt::k8s::resources;

namespace {

using steady = std::chrono::steady_clock;

struct timeline {
  std::mutex mtx;
  std::vector<std::tuple<steady::time_point, std::string, bool>> entries; // when, who, leading
  void push(const std::string& who, bool leading) {
    std::lock_guard<std::mutex> g{mtx};
    entries.emplace_back(steady::now(), who, leading);
  }
  // The largest number of simultaneous leaders over the recorded timeline.
  int max_leaders() {
    std::lock_guard<std::mutex> g{mtx};
    std::map<std::string, bool> state;
    int worst = 0;
    for (auto& [when, who, leading] : entries) {
      state[who] = leading;
      int n = 0;
      for (auto& [w, l] : state)
        n += l ? 1 : 0;
      worst = std::max(worst, n);
    }
    return worst;
  }
  std::optional<steady::time_point> first_start(const std::string& who) {
    std::lock_guard<std::mutex> g{mtx};
    for (auto& [when, w, leading] : entries)
      if (w == who && leading)
        return when;
    return std::nullopt;
  }
};

schedopt::leadership_subscriber_actor::behavior_type
leadership_recorder(std::shared_ptr<timeline> tl, std::string who) {
  return {
    [=](schedopt::atom::started_leading) { tl->push(who, true); },
    [=](schedopt::atom::stopped_leading) { tl->push(who, false); },
  };
}

bool is_leading(schedopt::test::sim_client& t, schedopt::leader_elector_actor e) {
  caf::scoped_actor self{*t.env.sys};
  bool leading = false;
  self->request(e, 10s, schedopt::atom::leading_v)
    .receive([&](bool b) { leading = b; }, [&](caf::error&) {});
  return leading;
}

schedopt::leader_election_options election(const std::string& who) {
  schedopt::leader_election_options o;
  o.namespace_ = "default";
  o.identity = who;
  o.lease_duration = 3s;
  o.renew_deadline = 2s;
  o.retry_period = 500ms;
  return o;
}

} // namespace

BOOST_AUTO_TEST_CASE(leader_election_two_replicas_one_leader_and_takeover) {
  schedopt::test::sim_client t{{"--vmis", "1", "--nodes", "2"}};
  auto tl = std::make_shared<timeline>();
  auto a = schedopt::spawn_leader_elector(*t.env.sys, t.client, election("a"));
  auto b = t.env.own(schedopt::spawn_leader_elector(*t.env.sys, t.client, election("b")));
  caf::anon_send(a, schedopt::atom::subscribe_v,
                 schedopt::leadership_subscriber_actor{
                   t.env.own(t.env.sys->spawn(leadership_recorder, tl, std::string{"a"}))});
  caf::anon_send(b, schedopt::atom::subscribe_v,
                 schedopt::leadership_subscriber_actor{
                   t.env.own(t.env.sys->spawn(leadership_recorder, tl, std::string{"b"}))});
  // Exactly one leads.
  auto deadline = steady::now() + 15s;
  while (steady::now() < deadline && !is_leading(t, a) && !is_leading(t, b))
    std::this_thread::sleep_for(100ms);
  std::this_thread::sleep_for(2s); // several renew rounds
  bool la = is_leading(t, a);
  bool lb = is_leading(t, b);
  BOOST_REQUIRE(la != lb);
  auto leader = la ? a : b;
  auto follower = la ? b : a;
  std::string follower_name = la ? "b" : "a";
  auto got = t.get({res::leases, "default", "schedopt-leader", {}});
  BOOST_REQUIRE(got);
  auto lease = schedopt::decode_lease(got.value.body);
  BOOST_REQUIRE(lease.has_value());
  BOOST_CHECK_EQUAL(lease->holder_identity, la ? "a" : "b");

  // The leader stops without releasing (a crash): the follower takes over after expiry.
  auto stopped_at = steady::now();
  tl->push(la ? "a" : "b", false); // it cannot lead once dead
  caf::anon_send_exit(leader, caf::exit_reason::kill);
  leader = nullptr;
  a = nullptr;
  deadline = steady::now() + 15s;
  while (steady::now() < deadline && !is_leading(t, follower))
    std::this_thread::sleep_for(100ms);
  BOOST_REQUIRE(is_leading(t, follower));
  auto took = tl->first_start(follower_name);
  BOOST_REQUIRE(took.has_value());
  std::chrono::duration<double> waited = *took - stopped_at;
  BOOST_TEST_MESSAGE("takeover after " << waited.count() << "s");
  BOOST_CHECK_GE(waited.count(), 2.5); // not before the 3s lease could expire (minus slack)
  BOOST_CHECK_LE(waited.count(), 3.0 + 2.0 + 2.0); // lease + a few retry periods + slack
  auto after = schedopt::decode_lease(t.get({res::leases, "default", "schedopt-leader", {}}).value.body);
  BOOST_REQUIRE(after.has_value());
  BOOST_CHECK_EQUAL(after->holder_identity, follower_name);
  BOOST_CHECK_EQUAL(after->lease_transitions, lease->lease_transitions + 1);

  // A third replica takes over quickly after a clean release.
  auto c = t.env.own(schedopt::spawn_leader_elector(*t.env.sys, t.client, election("c")));
  caf::anon_send(c, schedopt::atom::subscribe_v,
                 schedopt::leadership_subscriber_actor{
                   t.env.own(t.env.sys->spawn(leadership_recorder, tl, std::string{"c"}))});
  std::this_thread::sleep_for(1s);
  BOOST_CHECK(!is_leading(t, c));
  caf::scoped_actor self{*t.env.sys};
  bool released = false;
  self->request(follower, 10s, schedopt::atom::release_v)
    .receive([&](bool r) { released = r; }, [&](caf::error&) {});
  BOOST_REQUIRE(released);
  auto released_at = steady::now();
  deadline = steady::now() + 10s;
  while (steady::now() < deadline && !is_leading(t, c))
    std::this_thread::sleep_for(100ms);
  BOOST_REQUIRE(is_leading(t, c));
  std::chrono::duration<double> quick = steady::now() - released_at;
  BOOST_CHECK_LE(quick.count(), 3.0 + 1.0); // leaseDurationSeconds 1 after release
  BOOST_CHECK_EQUAL(tl->max_leaders(), 1);
}

// The controller's API client with a write gate: reads always go, writes only while the
// gate is open; a write refused by the gate never reaches the server (not in its audit).
BOOST_AUTO_TEST_CASE(a_shut_write_gate_sends_no_write) {
  schedopt::api_client_options opts;
  auto gate = std::make_shared<schedopt::write_gate>();
  opts.writes = gate;
  opts.user_agent = "schedopt/0.1 (gate-test)";
  schedopt::test::sim_client t({}, opts);
  auto body = [](const std::string& name) {
    return json{{"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"},
                {"metadata", {{"name", name}, {"namespace", "default"}}},
                {"spec", {{"holderIdentity", "x"}}}}
      .dump();
  };
  // A read goes out: answered 404, not refused.
  BOOST_CHECK(schedopt::error_code(t.get({res::leases, "default", "none", {}}).error)
              == schedopt::ec::not_found);
  auto refused = t.create({res::leases, "default", body("gated")});
  BOOST_REQUIRE(!refused);
  BOOST_CHECK(schedopt::error_code(refused.error) == schedopt::ec::cancelled);
  BOOST_CHECK(schedopt::error_code(t.get({res::leases, "default", "gated", {}}).error)
              == schedopt::ec::not_found);
  gate->open_until(steady::now() + 30s);
  BOOST_CHECK(t.create({res::leases, "default", body("gated")}));
  gate->close();
  auto again = t.create({res::leases, "default", body("gated-2")});
  BOOST_CHECK(schedopt::error_code(again.error) == schedopt::ec::cancelled);
  auto audit = schedopt::test::http_request(t.sim, "GET", "/admin/audit").json();
  int writes = 0;
  for (auto& w : audit.value("writes", json::array()))
    if (w.value("identity", "") == "schedopt/0.1 (gate-test)")
      ++writes;
  BOOST_CHECK_EQUAL(writes, 1);
}

BOOST_AUTO_TEST_CASE(event_recorder_aggregates_repeats) {
  schedopt::test::sim_client t{{"--vmis", "1", "--nodes", "2"}};
  // Events live in their object's namespace, which must exist (as on a real API server).
  const k8s::resource namespaces{"", "v1", "namespaces", false};
  json ns{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team-a"}}}};
  auto made = t.create({namespaces, "", ns.dump()});
  BOOST_REQUIRE_MESSAGE(made, error_message(made.error));
  auto rec = t.env.own(schedopt::spawn_event_recorder(*t.env.sys, t.client));
  schedopt::object_reference so;
  so.api_version = "stork.libopenstorage.org/v1alpha1";
  so.kind = "SchedulingOptimization";
  so.name = "so-1";
  so.uid = "uid-1";
  for (int i = 0; i < 3; ++i)
    caf::anon_send(rec, schedopt::event_record{so, "Warning", "MigrationFailed", "vm x failed"});
  caf::anon_send(rec, schedopt::event_record{so, "Normal", "Started", "run started"});
  schedopt::object_reference vmi;
  vmi.api_version = "kubevirt.io/v1";
  vmi.kind = "VirtualMachineInstance";
  vmi.name = "vm-1";
  vmi.namespace_ = "team-a";
  vmi.uid = "uid-2";
  caf::anon_send(rec, schedopt::event_record{vmi, "Normal", "Migrated", "moved"});
  std::this_thread::sleep_for(200ms);
  t.flush_events(rec);
  std::map<std::string, int64_t> counts;
  for (auto& e : t.events_in("default"))
    if (e.involved_object.name == "so-1")
      counts[e.reason] += e.count * 100 + 1; // count and number of Event objects
  BOOST_CHECK_EQUAL(counts["MigrationFailed"], 301); // one Event, count 3
  BOOST_CHECK_EQUAL(counts["Started"], 101);
  auto in_ns = t.events_in("team-a");
  BOOST_REQUIRE_EQUAL(in_ns.size(), 1u);
  BOOST_CHECK_EQUAL(in_ns[0].reason, "Migrated");
  BOOST_CHECK_EQUAL(in_ns[0].source_component, "schedopt");
}

// A deleted object's aggregation records are dropped (atom::close), so the recorder keeps
// nothing per request once its request is gone; other objects' records stay.
BOOST_AUTO_TEST_CASE(event_recorder_forgets_a_closed_object) {
  schedopt::test::sim_client t{{"--vmis", "1", "--nodes", "2"}};
  auto rec = t.env.own(schedopt::spawn_event_recorder(*t.env.sys, t.client));
  auto reference = [](const char* name, const char* uid) {
    schedopt::object_reference r;
    r.api_version = "stork.libopenstorage.org/v1alpha1";
    r.kind = "SchedulingOptimization";
    r.name = name;
    r.uid = uid;
    return r;
  };
  auto closed = reference("so-closed", "uid-closed");
  auto kept = reference("so-kept", "uid-kept");
  for (auto* r : {&closed, &kept})
    caf::anon_send(rec, schedopt::event_record{*r, "Normal", "Started", "run started"});
  t.flush_events(rec);
  caf::anon_send(rec, schedopt::atom::close_v, closed);
  for (auto* r : {&closed, &kept})
    caf::anon_send(rec, schedopt::event_record{*r, "Normal", "Started", "run started"});
  t.flush_events(rec);
  std::map<std::string, std::vector<int64_t>> counts; // per object: each Event's count
  for (auto& e : t.events_in("default"))
    counts[e.involved_object.name].push_back(e.count);
  // Forgotten: the repeat is a new Event. Kept: the repeat raised the first one's count.
  BOOST_CHECK_EQUAL(counts["so-closed"].size(), 2u);
  BOOST_REQUIRE_EQUAL(counts["so-kept"].size(), 1u);
  BOOST_CHECK_EQUAL(counts["so-kept"][0], 2);
}
