// docs/design.md §1.2 at the controller: it decides on the complete, synced request list (an
// interrupted run is resumed before anything else, never marked Pending) and tracks
// requests by uid (a request re-created under the same name is a new request).
#include <boost/test/unit_test.hpp>

#include "actor_fixture.hpp"
#include "actors/controller_actor.hpp"

using namespace schedopt;
using namespace schedopt::test;

namespace {

using so_t = scheduling_optimization;

/// A request with no optimization kind: it finishes as soon as it runs, so the order
/// in which requests run shows in the writer's outcomes.
so_t request(const std::string& name, const std::string& uid, const std::string& created,
             request_stage stage_ = request_stage::none) {
  so_t so;
  so.metadata.name = name;
  so.metadata.uid = uid;
  so.metadata.creation_timestamp = created;
  so.status.stage = stage_;
  if (stage_ != request_stage::none)
    so.status.status =
      stage_ == request_stage::pending ? request_status::pending : request_status::in_progress;
  return so;
}

struct controller_fixture : actor_fixture {
  controller_fixture() {
    ctx.status = track(spawn_mock_status_writer(sys, writer));
    ctx.events = track(spawn_mock_event_recorder(sys, events, forgotten));
    informer = track(spawn_mock_informer(sys, requests));
  }

  void start() {
    aut = track(spawn_controller(sys, ctx, informer));
    caf::anon_send(aut, atom::run_v);
    sched.run();
  }

  std::vector<std::string> outcome_order() const {
    std::vector<std::string> out;
    for (auto& o : writer->outcomes)
      out.push_back(o.request);
    return out;
  }

  std::vector<std::string> pending_written() const {
    std::vector<std::string> out;
    for (auto& s : writer->stages)
      if (s.stage == request_stage::pending)
        out.push_back(s.request);
    return out;
  }

  std::shared_ptr<writer_log> writer = std::make_shared<writer_log>();
  std::shared_ptr<std::vector<event_record>> events = std::make_shared<std::vector<event_record>>();
  std::shared_ptr<std::vector<object_reference>> forgotten = std::make_shared<std::vector<object_reference>>();
  std::shared_ptr<informer_log<so_t>> requests = std::make_shared<informer_log<so_t>>();
  controller_context ctx;
  scheduling_optimization_informer_actor informer;
  controller_actor aut;
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(controller, controller_fixture)

BOOST_AUTO_TEST_CASE(an_interrupted_run_replayed_last_is_resumed_first) {
  // The replay delivers the old new request first and the interrupted one last: deciding
  // on the first object seen would promote "a" and write "b" (Migrating) back to Pending.
  requests->objects = {request("a", "uid-a", "2026-11-30T09:00:00Z"),
                       request("b", "uid-b", "2026-11-30T10:00:00Z", request_stage::migrating)};
  start();
  BOOST_CHECK((outcome_order() == std::vector<std::string>{"uid-b", "uid-a"}));
  BOOST_CHECK((pending_written() == std::vector<std::string>{"uid-a"}));
}

BOOST_AUTO_TEST_CASE(a_request_created_later_runs_after_the_first_finished) {
  requests->objects = {request("a", "uid-a", "2026-11-30T09:00:00Z")};
  start();
  requests->push_added(request("b", "uid-b", "2026-11-30T09:01:00Z"));
  sched.run();
  BOOST_CHECK((outcome_order() == std::vector<std::string>{"uid-a", "uid-b"}));
}

BOOST_AUTO_TEST_CASE(nothing_is_decided_before_the_list_is_synced) {
  requests->synced = false;
  requests->objects = {request("a", "uid-a", "2026-11-30T09:00:00Z")};
  start();
  BOOST_CHECK(writer->opens.empty());
  BOOST_CHECK(writer->stages.empty());
  caf::anon_send(aut, informer_synced<so_t>{"5"});
  sched.run();
  BOOST_CHECK((outcome_order() == std::vector<std::string>{"uid-a"}));
}

BOOST_AUTO_TEST_CASE(two_interrupted_runs_are_resumed_one_after_the_other_never_pending) {
  requests->objects = {request("late", "uid-l", "2026-11-30T11:00:00Z", request_stage::evaluating),
                       request("early", "uid-e", "2026-11-30T10:00:00Z", request_stage::migrating)};
  start();
  BOOST_CHECK((outcome_order() == std::vector<std::string>{"uid-e", "uid-l"}));
  BOOST_CHECK(pending_written().empty());
}

BOOST_AUTO_TEST_CASE(a_request_recreated_with_the_same_name_mid_run_runs_as_a_new_request) {
  // "a" (uid-1) is mid-run (its open is never answered) when it is deleted and
  // re-created: the old run is stopped and closed by uid, the new one runs.
  writer->hold_open = {"uid-1"};
  requests->objects = {request("a", "uid-1", "2026-11-30T09:00:00Z")};
  start();
  BOOST_REQUIRE_EQUAL(writer->opens.size(), 1u);
  requests->push_deleted(request("a", "uid-1", "2026-11-30T09:00:00Z"));
  requests->push_added(request("a", "uid-2", "2026-11-30T09:05:00Z"));
  sched.run();
  BOOST_CHECK((outcome_order() == std::vector<std::string>{"uid-2"}));
  BOOST_CHECK(std::find(writer->closes.begin(), writer->closes.end(), "uid-1") != writer->closes.end());
}

BOOST_AUTO_TEST_CASE(a_recreate_seen_only_as_an_update_after_a_watch_gap_is_a_new_request) {
  requests->objects = {request("a", "uid-1", "2026-11-30T09:00:00Z", request_stage::final_)};
  start();
  BOOST_CHECK(writer->outcomes.empty());
  auto recreated = request("a", "uid-2", "2026-11-30T09:05:00Z");
  requests->push_updated(requests->objects[0], recreated);
  sched.run();
  BOOST_CHECK((outcome_order() == std::vector<std::string>{"uid-2"}));
}

BOOST_AUTO_TEST_CASE(a_recreate_seen_as_an_update_mid_run_stops_and_closes_the_old_uid) {
  // The controller forgets uid-1 through the name index entry it erases (under the asan
  // preset this read freed memory): the old run must still be stopped and closed by uid-1.
  writer->hold_open = {"uid-1"};
  requests->objects = {request("a", "uid-1", "2026-11-30T09:00:00Z")};
  start();
  BOOST_REQUIRE_EQUAL(writer->opens.size(), 1u);
  requests->push_updated(requests->objects[0], request("a", "uid-2", "2026-11-30T09:05:00Z"));
  sched.run();
  BOOST_CHECK((outcome_order() == std::vector<std::string>{"uid-2"}));
  BOOST_CHECK((writer->closes == std::vector<std::string>{"uid-1"}));
}

BOOST_AUTO_TEST_CASE(a_deleted_final_request_is_forgotten_by_the_event_recorder) {
  // Nothing is kept per request once its creator deletes it: the recorder drops the
  // request's aggregation records (a re-created request has another uid).
  requests->objects = {request("a", "uid-1", "2026-11-30T09:00:00Z", request_stage::final_)};
  start();
  BOOST_CHECK(forgotten->empty());
  requests->push_deleted(requests->objects[0]);
  sched.run();
  BOOST_REQUIRE_EQUAL(forgotten->size(), 1u);
  BOOST_CHECK_EQUAL(forgotten->at(0).uid, "uid-1");
  BOOST_CHECK_EQUAL(forgotten->at(0).kind, "SchedulingOptimization");
}

BOOST_AUTO_TEST_CASE(a_shutdown_stops_the_running_request) {
  writer->hold_open = {"uid-1"};
  requests->objects = {request("a", "uid-1", "2026-11-30T09:00:00Z")};
  start();
  BOOST_REQUIRE_EQUAL(writer->opens.size(), 1u);
  caf::anon_send_exit(aut, caf::exit_reason::user_shutdown);
  sched.run();
  // The controller is gone, and so is its request actor (linked): nothing was left alive
  // to answer when the held open is delivered now.
  BOOST_REQUIRE_EQUAL(writer->held.size(), 1u);
  writer->held.front().deliver(scheduling_optimization_status{});
  sched.run();
  BOOST_CHECK(writer->outcomes.empty());
  BOOST_CHECK(writer->stages.empty());
}

BOOST_AUTO_TEST_SUITE_END()
