// status_writer actor against a recording mock API: coalescing, urgent stage changes,
// heartbeats, requests keyed by uid (the JSON patch's uid test, its 422), 409 retried,
// retries with backoff, permanent rejections, shrinking a too-large status, 404 and
// close, dry run.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "actor_fixture.hpp"
#include "actors/status_writer_actor.hpp"
#include "k8s/metrics.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"
#include "model/status_coalescer.hpp"

using namespace schedopt;
using namespace schedopt::test;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

scheduling_optimization request_named(const std::string& name, std::string uid = "") {
  scheduling_optimization so;
  so.metadata.name = name;
  so.metadata.uid = uid.empty() ? "uid-" + name : std::move(uid);
  so.metadata.generation = 1;
  return so;
}

const std::string uid1 = "uid-so1";

double patches_counted(const char* result) {
  return k8s::default_metrics().value("schedopt_status_patches_total", {{"result", result}});
}

/// The status a JSON patch `[{"op":"test",...},{"op":"add","path":"/status",...}]` adds.
json status_in(const std::string& body) {
  auto ops = json::parse(body);
  BOOST_REQUIRE(ops.is_array());
  BOOST_REQUIRE_EQUAL(ops.size(), 2u);
  BOOST_CHECK_EQUAL(ops[1].at("op"), "add");
  BOOST_CHECK_EQUAL(ops[1].at("path"), "/status");
  return ops[1].at("value");
}

/// The uid the patch's first operation tests.
std::string uid_tested(const std::string& body) {
  auto ops = json::parse(body);
  BOOST_REQUIRE(ops.is_array() && !ops.empty());
  BOOST_CHECK_EQUAL(ops[0].at("op"), "test");
  BOOST_CHECK_EQUAL(ops[0].at("path"), "/metadata/uid");
  return ops[0].at("value").get<std::string>();
}

/// What kube-apiserver answers a JSON patch whose test failed (NewGenericServerResponse:
/// the bare message, no cause).
api_answer uid_test_failed() {
  return api_error(ec::invalid_request, 422, std::string{json_patch_not_applied});
}

detail_result result(const std::string& request, const std::string& vm, detail_status status) {
  kind_detail d{vm, "ns1", status, status == detail_status::successful ? "" : "Why: x"};
  return detail_result{request, vm_hyperconvergence_kind, d};
}

struct writer_fixture : actor_fixture {
  writer_fixture() {
    api = track(spawn_mock_api(sys, log));
  }

  ~writer_fixture() {
    log->respond = nullptr; // it may capture this fixture, which is going away
  }

  void start(status_writer_options opts = {}) {
    aut = track(spawn_status_writer(sys, api, opts));
    auto opened = ask<scheduling_optimization_status>(sys, aut, atom::open_v, request_named("so1"));
    sched.run();
    BOOST_REQUIRE(opened->value);
  }

  /// Stage change to Evaluating/InProgress, acknowledged; returns the reply.
  bool enter_evaluating() {
    auto reply = ask<bool>(sys, aut, stage_change{uid1, request_stage::evaluating,
                                                  request_status::in_progress, 1});
    sched.run();
    BOOST_REQUIRE(reply->value);
    return *reply->value;
  }

  /// The clock time of every patch the mock API receives (its answer: `answer`).
  void time_patches(std::function<api_answer()> answer) {
    log->respond = [this, answer](const api_call& c) -> api_answer {
      if (c.verb == "patch")
        patch_times.push_back(sched.clock().now());
      return answer();
    };
  }

  std::vector<caf::actor_clock::time_point> patch_times;
  /// Milliseconds between patch i-1 and patch i.
  int64_t gap_ms(std::size_t i) const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(patch_times[i] - patch_times[i - 1])
      .count();
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
    caf::anon_send(aut, result(uid1, vm, detail_status::successful));
  caf::anon_send(aut, result(uid1, "d", detail_status::skipped));
  caf::anon_send(aut, result(uid1, "e", detail_status::failed));
  advance(500ms);
  BOOST_CHECK_EQUAL(patches().size(), before); // flush interval (1s) not over yet
  advance(700ms);
  auto all = patches();
  BOOST_REQUIRE_EQUAL(all.size(), before + 1);
  auto& p = all.back();
  BOOST_CHECK(p.status);
  BOOST_CHECK(p.res == k8s::resources::scheduling_optimizations);
  BOOST_CHECK_EQUAL(p.name, "so1");
  BOOST_CHECK_EQUAL(uid_tested(p.body), uid1);
  auto vm = status_in(p.body).at("vmHyperconvergence");
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
  auto reply = ask<bool>(sys, aut, stage_change{uid1, request_stage::evaluating,
                                                request_status::in_progress, 1});
  sched.run(); // no time passes
  auto all = patches();
  BOOST_REQUIRE_EQUAL(all.size(), before + 1);
  auto st = status_in(all.back().body);
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
  auto last = status_in(before.back().body).at("lastUpdateTimestamp");
  advance(29s);
  BOOST_CHECK_EQUAL(patches().size(), before.size()); // quiet until the heartbeat
  advance(2s);
  auto after = patches();
  BOOST_REQUIRE_EQUAL(after.size(), before.size() + 1);
  auto beat = status_in(after.back().body);
  BOOST_CHECK_EQUAL(beat.at("stage").get<std::string>(), "Evaluating");
  BOOST_CHECK_NE(beat.at("lastUpdateTimestamp"), last);
}

BOOST_AUTO_TEST_CASE(throttling_and_server_error_are_retried_with_the_same_patch) {
  start();
  advance(200ms);
  auto before = patches().size();
  log->scripted.push_back(api_error(ec::too_many_requests, 429, "rate limited"));
  log->scripted.push_back(api_error(ec::server_error, 500, "etcd down"));
  auto reply = ask<bool>(sys, aut, stage_change{uid1, request_stage::evaluating,
                                                request_status::in_progress, 1});
  sched.run();
  BOOST_CHECK_EQUAL(patches().size(), before + 1);
  BOOST_CHECK(!reply->arrived());
  advance(200ms); // first backoff (200ms): retry, answered 500
  BOOST_CHECK_EQUAL(patches().size(), before + 2);
  BOOST_CHECK(!reply->arrived());
  advance(300ms); // second backoff is 400ms: not yet
  BOOST_CHECK_EQUAL(patches().size(), before + 2);
  advance(100ms); // retry, answered 200
  auto all = patches();
  BOOST_REQUIRE_EQUAL(all.size(), before + 3);
  BOOST_CHECK_EQUAL(all[before].body, all[before + 1].body);
  BOOST_CHECK_EQUAL(all[before].body, all[before + 2].body);
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(*reply->value);
}

BOOST_AUTO_TEST_CASE(unavailable_api_is_retried_with_growing_gaps_never_dropped) {
  start();
  advance(200ms);
  time_patches([] { return api_answer{api_error(ec::server_error, 503, "unavailable")}; });
  auto retried = patches_counted("retried");
  auto reply = ask<bool>(sys, aut, stage_change{uid1, request_stage::evaluating,
                                                request_status::in_progress, 1});
  advance(60s);
  // 600 ticks; with 200ms doubling to 30s the attempts are at 0, .2, .6, 1.4, 3, 6.2,
  // 12.6, 25.4, 51s: logarithmic, not one per tick.
  BOOST_TEST_MESSAGE("attempts in 60s: " << patch_times.size());
  BOOST_CHECK_GE(patch_times.size(), 5u);
  BOOST_CHECK_LE(patch_times.size(), 10u);
  for (std::size_t i = 2; i < patch_times.size(); ++i)
    BOOST_CHECK_GT(gap_ms(i), gap_ms(i - 1));
  BOOST_CHECK(!reply->arrived()); // never dropped
  BOOST_CHECK_EQUAL(patches_counted("retried") - retried, static_cast<double>(patch_times.size()));
  // The gap is capped at 30s.
  advance(120s);
  auto n = patch_times.size();
  BOOST_REQUIRE_GE(n, 3u);
  BOOST_CHECK_LE(gap_ms(n - 1), 30100);
  // The API recovers: the stage change lands and the backoff starts over.
  time_patches([] { return api_answer{k8s::api_response{200, "{}"}}; });
  advance(31s);
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(*reply->value);
  auto st = status_in(patches().back().body);
  BOOST_CHECK_EQUAL(st.at("stage").get<std::string>(), "Evaluating");
  log->scripted.push_back(api_error(ec::server_error, 503, "unavailable"));
  auto before = patches().size();
  auto outcome = ask<bool>(sys, aut, run_outcome{uid1, request_status::successful, ""});
  advance(200ms);
  BOOST_CHECK_EQUAL(patches().size(), before + 2); // retried after 200ms, not 30s
  BOOST_REQUIRE(outcome->value);
  BOOST_CHECK(*outcome->value);
}

BOOST_AUTO_TEST_CASE(unprocessable_patch_is_not_retried_and_the_waiter_hears_false) {
  auto events = std::make_shared<std::vector<event_record>>();
  status_writer_options opts;
  opts.events = track(spawn_mock_event_recorder(sys, events));
  start(opts);
  advance(200ms);
  auto before = patches().size();
  auto rejected = patches_counted("rejected");
  log->respond = [](const api_call&) -> api_answer {
    return api_error(ec::invalid_request, 422,
                     "SchedulingOptimization.stork.libopenstorage.org \"so1\" is invalid: "
                     "status.stage: Unsupported value: \"Evaluating\"");
  };
  auto reply = ask<bool>(sys, aut, stage_change{uid1, request_stage::evaluating,
                                                request_status::in_progress, 1});
  sched.run();
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(!*reply->value);
  advance(10s);
  BOOST_CHECK_EQUAL(patches().size(), before + 1); // exactly one attempt
  BOOST_CHECK_EQUAL(patches_counted("rejected") - rejected, 1.0);
  // The run can end: its outcome is answered at once, without another doomed patch.
  auto outcome = ask<bool>(sys, aut, run_outcome{uid1, request_status::successful, ""});
  advance(10s);
  BOOST_REQUIRE(outcome->value);
  BOOST_CHECK(!*outcome->value);
  BOOST_CHECK_EQUAL(patches().size(), before + 1);
  BOOST_REQUIRE_EQUAL(events->size(), 1u);
  auto& ev = events->front();
  BOOST_CHECK_EQUAL(ev.type, "Warning");
  BOOST_CHECK_EQUAL(ev.involved.name, "so1");
  BOOST_CHECK_EQUAL(ev.involved.uid, uid1);
  BOOST_CHECK_EQUAL(ev.involved.kind, "SchedulingOptimization");
  BOOST_CHECK_NE(ev.message.find("Unsupported value"), std::string::npos);
}

BOOST_AUTO_TEST_CASE(forbidden_patch_is_not_retried) {
  start();
  advance(200ms);
  auto before = patches().size();
  log->scripted.push_back(api_error(ec::unauthorized, 403,
                                    "schedulingoptimizations.stork.libopenstorage.org \"so1\" is "
                                    "forbidden: User cannot patch resource"));
  auto reply = ask<bool>(sys, aut, stage_change{uid1, request_stage::evaluating,
                                                request_status::in_progress, 1});
  advance(10s);
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(!*reply->value);
  BOOST_CHECK_EQUAL(patches().size(), before + 1);
}

BOOST_AUTO_TEST_CASE(too_large_status_is_shrunk_and_final_is_written) {
  start();
  enter_evaluating();
  for (int i = 0; i < 8; ++i)
    caf::anon_send(aut, result(uid1, "ok" + std::to_string(i), detail_status::successful));
  for (int i = 0; i < 4; ++i)
    caf::anon_send(aut, result(uid1, "f" + std::to_string(i), detail_status::failed));
  advance(1200ms);
  auto before = patches().size();
  auto full = status_in(patches().back().body).at("vmHyperconvergence");
  BOOST_REQUIRE_EQUAL(full.at("details").size(), 12u);
  log->scripted.push_back(api_error(ec::invalid_request, 413, "Request entity too large: limit is 3145728"));
  auto reply = ask<bool>(sys, aut, run_outcome{uid1, request_status::partial_success,
                                               "4 candidates outstanding: 4 failed"});
  sched.run();
  auto all = patches();
  BOOST_REQUIRE_EQUAL(all.size(), before + 2); // the 413, then the smaller patch at once
  BOOST_CHECK_LT(all.back().body.size(), all[before].body.size());
  auto st = status_in(all.back().body);
  BOOST_CHECK_EQUAL(st.at("stage").get<std::string>(), "Final");
  BOOST_CHECK_EQUAL(st.at("status").get<std::string>(), "PartialSuccess");
  BOOST_CHECK_NE(st.at("reason").get<std::string>().find("details truncated"), std::string::npos);
  auto vm = st.at("vmHyperconvergence");
  BOOST_CHECK_EQUAL(vm.at("details").size(), 6u);
  BOOST_CHECK_EQUAL(vm.at("successful").get<int>(), 8);
  BOOST_CHECK_EQUAL(vm.at("failed").get<int>(), 4);
  BOOST_CHECK_EQUAL(uid_tested(all.back().body), uid1);
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(*reply->value);
  advance(40s); // Final: never touched again
  BOOST_CHECK_EQUAL(patches().size(), before + 2);
}

BOOST_AUTO_TEST_CASE(etcd_too_large_is_shrunk_until_it_fits) {
  start();
  enter_evaluating();
  for (int i = 0; i < 8; ++i)
    caf::anon_send(aut, result(uid1, "ok" + std::to_string(i), detail_status::successful));
  advance(1200ms);
  auto before = patches().size();
  log->scripted.push_back(api_error(ec::server_error, 500, "etcdserver: request is too large"));
  log->scripted.push_back(api_error(ec::invalid_request, 422, "etcdserver: request is too large"));
  auto reply = ask<bool>(sys, aut, run_outcome{uid1, request_status::successful, ""});
  sched.run();
  auto all = patches();
  BOOST_REQUIRE_EQUAL(all.size(), before + 3);
  auto vm = status_in(all.back().body).at("vmHyperconvergence");
  BOOST_CHECK_EQUAL(vm.at("details").size(), 2u); // 8 -> 4 -> 2
  BOOST_CHECK_EQUAL(vm.at("successful").get<int>(), 8);
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(*reply->value);
}

BOOST_AUTO_TEST_CASE(patch_is_a_json_patch_that_tests_the_uid_first) {
  start();
  enter_evaluating();
  auto all = patches();
  BOOST_REQUIRE(!all.empty());
  for (auto& p : all) {
    BOOST_CHECK_EQUAL(p.name, "so1");
    BOOST_CHECK(p.status);
    BOOST_CHECK(p.json_patch); // application/json-patch+json: a merge patch has no guard
    BOOST_CHECK_EQUAL(uid_tested(p.body), uid1);
    BOOST_CHECK(status_in(p.body).contains("stage"));
  }
}

BOOST_AUTO_TEST_CASE(same_name_with_another_uid_is_another_request) {
  start(); // so1, uid-so1
  enter_evaluating();
  auto recreated = ask<scheduling_optimization_status>(sys, aut, atom::open_v,
                                                        request_named("so1", "uid-so1-new"));
  sched.run();
  BOOST_REQUIRE(recreated->value);
  BOOST_CHECK_EQUAL(recreated->value->stage, request_stage::none); // not the old request's status
  caf::anon_send(aut, atom::close_v, uid1);
  sched.run();
  // The closed uid is done; the new one with the same name is written.
  auto old_reply = ask<bool>(sys, aut, run_outcome{uid1, request_status::successful, ""});
  auto before = patches().size();
  auto new_reply = ask<bool>(sys, aut, stage_change{"uid-so1-new", request_stage::pending,
                                                    request_status::pending, 1});
  sched.run();
  BOOST_REQUIRE(old_reply->value);
  BOOST_CHECK(!*old_reply->value);
  BOOST_REQUIRE(new_reply->value);
  BOOST_CHECK(*new_reply->value);
  auto all = patches();
  BOOST_REQUIRE_GT(all.size(), before);
  for (std::size_t i = before; i < all.size(); ++i) {
    BOOST_CHECK_EQUAL(all[i].name, "so1");
    BOOST_CHECK_EQUAL(uid_tested(all[i].body), "uid-so1-new");
    auto st = status_in(all[i].body);
    BOOST_CHECK_EQUAL(st.at("stage"), "Pending");
    BOOST_CHECK(!st.contains("startTimestamp"));
  }
}

BOOST_AUTO_TEST_CASE(update_for_a_uid_never_opened_is_dropped) {
  start();
  advance(200ms);
  auto before = patches().size();
  auto reply = ask<bool>(sys, aut, stage_change{"uid-unknown", request_stage::evaluating,
                                                request_status::in_progress, 1});
  caf::anon_send(aut, result("uid-unknown", "a", detail_status::successful));
  advance(5s);
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(!*reply->value);
  BOOST_CHECK_EQUAL(patches().size(), before);
}

BOOST_AUTO_TEST_CASE(failed_uid_test_means_the_request_is_gone_and_stops_writing) {
  auto events = std::make_shared<std::vector<event_record>>();
  status_writer_options opts;
  opts.events = track(spawn_mock_event_recorder(sys, events));
  start(opts);
  enter_evaluating();
  advance(200ms);
  auto before = patches().size();
  auto gone = patches_counted("gone");
  auto rejected = patches_counted("rejected");
  log->scripted.push_back(uid_test_failed());
  caf::anon_send(aut, result(uid1, "a", detail_status::successful));
  auto reply = ask<bool>(sys, aut, run_outcome{uid1, request_status::successful, ""});
  sched.run();
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(!*reply->value);
  BOOST_CHECK_EQUAL(patches().size(), before + 1);
  caf::anon_send(aut, result(uid1, "late", detail_status::successful));
  advance(40s);
  BOOST_CHECK_EQUAL(patches().size(), before + 1); // never retried
  BOOST_CHECK_EQUAL(patches_counted("gone") - gone, 1.0);
  // Not a rejection: the object was replaced, there is nothing to warn its creator of.
  BOOST_CHECK_EQUAL(patches_counted("rejected") - rejected, 0.0);
  BOOST_CHECK(events->empty());
}

BOOST_AUTO_TEST_CASE(conflict_is_retried_like_any_transient_failure) {
  // PATCH carries no precondition kube-apiserver checks, so a 409 is a storage conflict
  // the server gave up retrying: the same patch goes out again after the backoff.
  start();
  enter_evaluating();
  advance(200ms);
  auto before = patches().size();
  log->scripted.push_back(api_error(ec::conflict, 409,
                                    "Operation cannot be fulfilled on schedulingoptimizations"
                                    ".stork.libopenstorage.org \"so1\": the object has been modified"));
  auto reply = ask<bool>(sys, aut, run_outcome{uid1, request_status::successful, ""});
  sched.run();
  BOOST_CHECK_EQUAL(patches().size(), before + 1);
  BOOST_CHECK(!reply->arrived());
  advance(200ms);
  auto all = patches();
  BOOST_REQUIRE_EQUAL(all.size(), before + 2);
  BOOST_CHECK_EQUAL(all[before].body, all[before + 1].body);
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(*reply->value);
}

BOOST_AUTO_TEST_CASE(not_found_stops_writing_and_fails_pending_stage_changes) {
  start();
  advance(200ms);
  auto before = patches().size();
  log->scripted.push_back(api_error(ec::not_found, 404, "schedulingoptimizations \"so1\" not found"));
  auto reply = ask<bool>(sys, aut, stage_change{uid1, request_stage::evaluating,
                                                request_status::in_progress, 1});
  sched.run();
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(!*reply->value);
  BOOST_CHECK_EQUAL(patches().size(), before + 1);
  // A late result from a candidate still running must not resurrect the writes.
  caf::anon_send(aut, result(uid1, "late", detail_status::successful));
  advance(40s);
  BOOST_CHECK_EQUAL(patches().size(), before + 1);
}

BOOST_AUTO_TEST_CASE(close_stops_writing) {
  start();
  enter_evaluating();
  advance(200ms);
  auto before = patches().size();
  log->hold = true;
  caf::anon_send(aut, result(uid1, "a", detail_status::successful));
  advance(1200ms); // the coalesced patch is in flight, held by the API
  BOOST_REQUIRE_EQUAL(patches().size(), before + 1);
  auto reply = ask<bool>(sys, aut, run_outcome{uid1, request_status::successful, ""});
  sched.run();
  caf::anon_send(aut, atom::close_v, uid1);
  sched.run();
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(!*reply->value); // closed before the final status was written
  log->hold = false;
  log->release();
  caf::anon_send(aut, result(uid1, "b", detail_status::failed));
  advance(40s);
  BOOST_CHECK_EQUAL(patches().size(), before + 1);
}

BOOST_AUTO_TEST_CASE(dry_run_sends_nothing_but_confirms) {
  status_writer_options opts;
  opts.dry_run = true;
  start(opts);
  BOOST_CHECK(enter_evaluating());
  caf::anon_send(aut, result(uid1, "a", detail_status::successful));
  advance(2s);
  auto reply = ask<bool>(sys, aut, run_outcome{uid1, request_status::successful, ""});
  sched.run();
  BOOST_REQUIRE(reply->value);
  BOOST_CHECK(*reply->value);
  BOOST_CHECK_EQUAL(log->calls.size(), 0u);
}

BOOST_AUTO_TEST_SUITE_END()
