// status_writer actor against a recording mock API: coalescing, urgent stage changes,
// heartbeats, retries, 404 and close, dry run.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "actor_fixture.hpp"
#include "actors/status_writer_actor.hpp"

using namespace schedopt;
using namespace schedopt::test;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

scheduling_optimization request_named(const std::string& name) {
  scheduling_optimization so;
  so.metadata.name = name;
  so.metadata.uid = "uid-" + name;
  so.metadata.generation = 1;
  return so;
}

vm_result result(const std::string& request, const std::string& vm, const char* status) {
  vm_detail d{vm, "ns1", status, std::string(status) == vm_status::successful ? "" : "Why: x"};
  return vm_result{request, d};
}

struct writer_fixture : actor_fixture {
  writer_fixture() {
    api = track(spawn_mock_api(sys, log));
  }

  void start(status_writer_options opts = {}) {
    aut = track(spawn_status_writer(sys, api, opts));
    auto opened = ask<scheduling_optimization_status>(sys, aut, atom::open_v, request_named("so1"));
    sched.run();
    BOOST_REQUIRE(opened->value);
  }

  /// Stage change to Evaluating/InProgress, acknowledged; returns the reply.
  bool enter_evaluating() {
    auto reply = ask<bool>(sys, aut, stage_change{"so1", stage::evaluating, run_status::in_progress, 1});
    sched.run();
    BOOST_REQUIRE(reply->value);
    return *reply->value;
  }

  std::vector<api_call> patches() const { return log->calls_of("patch"); }

  std::shared_ptr<api_log> log = std::make_shared<api_log>();
  api_client_actor api;
  status_writer_actor aut;
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(status_writer, writer_fixture)

BOOST_AUTO_TEST_CASE(many_vm_results_in_one_flush_interval_become_one_patch) {
  start();
  BOOST_CHECK(enter_evaluating());
  auto before = patches().size();
  BOOST_REQUIRE_GE(before, 1u);
  for (auto& vm : {"a", "b", "c"})
    caf::anon_send(aut, result("so1", vm, vm_status::successful));
  caf::anon_send(aut, result("so1", "d", vm_status::skipped));
  caf::anon_send(aut, result("so1", "e", vm_status::failed));
  advance(500ms);
  BOOST_CHECK_EQUAL(patches().size(), before); // flush interval (1s) not over yet
  advance(700ms);
  auto all = patches();
  BOOST_REQUIRE_EQUAL(all.size(), before + 1);
  auto& p = all.back();
  BOOST_CHECK(p.status);
  BOOST_CHECK(p.res == k8s::resources::scheduling_optimizations);
  BOOST_CHECK_EQUAL(p.name, "so1");
  auto vm = json::parse(p.body).at("status").at("vmHyperconvergence");
  BOOST_CHECK_EQUAL(vm.at("successful").get<int>(), 3);
  BOOST_CHECK_EQUAL(vm.at("skipped").get<int>(), 1);
  BOOST_CHECK_EQUAL(vm.at("failed").get<int>(), 1);
  BOOST_CHECK_EQUAL(vm.at("details").size(), 5u);
  // Nothing changed since: no further patch before the heartbeat.
  advance(3s);
  BOOST_CHECK_EQUAL(patches().size(), before + 1);
}

BOOST_AUTO_TEST_CASE(stage_change_is_written_at_once_and_answered_after_the_ack) {
  start();
  advance(200ms); // let the initial observedGeneration write go out
  auto before = patches().size();
  log->hold = true;
  auto reply = ask<bool>(sys, aut, stage_change{"so1", stage::evaluating, run_status::in_progress, 1});
  sched.run(); // no time passes
  auto all = patches();
  BOOST_REQUIRE_EQUAL(all.size(), before + 1);
  auto st = json::parse(all.back().body).at("status");
  BOOST_CHECK_EQUAL(st.at("stage").get<std::string>(), "Evaluating");
  BOOST_CHECK_EQUAL(st.at("status").get<std::string>(), "InProgress");
  BOOST_CHECK(st.contains("startTimestamp"));
  BOOST_CHECK(!reply->arrived()); // the API has not acknowledged yet
  log->hold = false;
  log->release();
  sched.run();
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(*reply->value);
}

BOOST_AUTO_TEST_CASE(heartbeat_bumps_last_update_while_in_progress) {
  start();
  enter_evaluating();
  advance(200ms);
  auto before = patches();
  auto last = json::parse(before.back().body).at("status").at("lastUpdateTimestamp");
  advance(29s);
  BOOST_CHECK_EQUAL(patches().size(), before.size()); // quiet until the heartbeat
  advance(2s);
  auto after = patches();
  BOOST_REQUIRE_EQUAL(after.size(), before.size() + 1);
  auto beat = json::parse(after.back().body).at("status");
  BOOST_CHECK_EQUAL(beat.at("stage").get<std::string>(), "Evaluating");
  BOOST_CHECK_NE(beat.at("lastUpdateTimestamp"), last);
}

BOOST_AUTO_TEST_CASE(conflict_and_server_error_are_retried_with_the_same_patch) {
  start();
  advance(200ms);
  auto before = patches().size();
  log->scripted.push_back(api_error(ec::conflict, 409, "the object has been modified"));
  log->scripted.push_back(api_error(ec::server_error, 500, "etcd down"));
  auto reply = ask<bool>(sys, aut, stage_change{"so1", stage::evaluating, run_status::in_progress, 1});
  sched.run();
  BOOST_CHECK_EQUAL(patches().size(), before + 1);
  BOOST_CHECK(!reply->arrived());
  advance(100ms); // next tick: retry, answered 500
  BOOST_CHECK_EQUAL(patches().size(), before + 2);
  BOOST_CHECK(!reply->arrived());
  advance(100ms); // next tick: retry, answered 200
  auto all = patches();
  BOOST_REQUIRE_EQUAL(all.size(), before + 3);
  BOOST_CHECK_EQUAL(all[before].body, all[before + 1].body);
  BOOST_CHECK_EQUAL(all[before].body, all[before + 2].body);
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(*reply->value);
}

BOOST_AUTO_TEST_CASE(not_found_stops_writing_and_fails_pending_stage_changes) {
  start();
  advance(200ms);
  auto before = patches().size();
  log->scripted.push_back(api_error(ec::not_found, 404, "schedulingoptimizations \"so1\" not found"));
  auto reply = ask<bool>(sys, aut, stage_change{"so1", stage::evaluating, run_status::in_progress, 1});
  sched.run();
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(!*reply->value);
  BOOST_CHECK_EQUAL(patches().size(), before + 1);
  // A late result from a candidate still running must not resurrect the writes.
  caf::anon_send(aut, result("so1", "late", vm_status::successful));
  advance(40s);
  BOOST_CHECK_EQUAL(patches().size(), before + 1);
}

BOOST_AUTO_TEST_CASE(close_stops_writing) {
  start();
  enter_evaluating();
  advance(200ms);
  auto before = patches().size();
  log->hold = true;
  caf::anon_send(aut, result("so1", "a", vm_status::successful));
  advance(1200ms); // the coalesced patch is in flight, held by the API
  BOOST_REQUIRE_EQUAL(patches().size(), before + 1);
  auto reply = ask<bool>(sys, aut, run_outcome{"so1", run_status::successful, ""});
  sched.run();
  caf::anon_send(aut, atom::close_v, std::string{"so1"});
  sched.run();
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(!*reply->value); // closed before the final status was written
  log->hold = false;
  log->release();
  caf::anon_send(aut, result("so1", "b", vm_status::failed));
  advance(40s);
  BOOST_CHECK_EQUAL(patches().size(), before + 1);
}

BOOST_AUTO_TEST_CASE(dry_run_sends_nothing_but_confirms) {
  status_writer_options opts;
  opts.dry_run = true;
  start(opts);
  BOOST_CHECK(enter_evaluating());
  caf::anon_send(aut, result("so1", "a", vm_status::successful));
  advance(2s);
  auto reply = ask<bool>(sys, aut, run_outcome{"so1", run_status::successful, ""});
  sched.run();
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(*reply->value);
  BOOST_CHECK_EQUAL(log->calls.size(), 0u);
}

BOOST_AUTO_TEST_SUITE_END()
