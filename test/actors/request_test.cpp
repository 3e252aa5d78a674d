// docs/design.md §1 at the request actor: every enabled kind runs, one after another in
// registry order, each with its own spec fragment; disabled, absent and unknown kinds
// do not; the outcome combines the kinds' (model/outcome); a stop reaches the kind that
// runs and no later kind starts. The kinds are mocks implementing the generic interface.
#include <boost/test/unit_test.hpp>

#include <caf/scoped_actor.hpp>

#include "actor_fixture.hpp"
#include "actors/request_actor.hpp"

using namespace schedopt;
using namespace schedopt::test;

namespace {

/// What the mock kinds saw: "<kind> <fragment json>" per run started, "<kind> stop".
using kind_log = std::vector<std::string>;

/// A kind that replies `result` at once (or, with `wait`, only once stopped) and then
/// quits, as every kind does.
optimization_kind mock_kind(std::string name, std::shared_ptr<kind_log> log, kind_result result,
                            bool wait = false) {
  auto spawn = [=](caf::local_actor* parent, const controller_context&) -> optimization_kind_actor {
    return parent->spawn<caf::linked>(
      [=](optimization_kind_actor::pointer self) -> optimization_kind_actor::behavior_type {
        auto promise = std::make_shared<caf::typed_response_promise<kind_result>>();
        return {
          [=](const kind_run& run) -> caf::result<kind_result> {
            log->push_back(name + " " + run.spec.json);
            if (!wait) {
              self->quit();
              return result;
            }
            *promise = self->make_response_promise<kind_result>();
            return *promise;
          },
          [=](atom::stop) {
            log->push_back(name + " stop");
            promise->deliver(kind_result{});
            self->quit();
          },
        };
      });
  };
  return optimization_kind{std::move(name), spawn};
}

kind_result counts(int64_t successful, int64_t skipped, int64_t failed) {
  kind_result r;
  r.successful = successful;
  r.skipped = skipped;
  r.failed = failed;
  return r;
}

struct request_fixture : actor_fixture {
  request_fixture() {
    ctx.status = track(spawn_mock_status_writer(sys, writer));
    ctx.events = track(spawn_mock_event_recorder(sys, events));
  }

  scheduling_optimization request(std::map<std::string, kind_spec> kinds) const {
    scheduling_optimization so;
    so.metadata.name = "r";
    so.metadata.uid = "uid-r";
    so.spec.kinds = std::move(kinds);
    return so;
  }

  request_actor start(scheduling_optimization so, const std::vector<optimization_kind>& registry) {
    auto aut = spawn_request(parent.ptr(), ctx, std::move(so), false, registry);
    sched.run();
    return aut;
  }

  std::shared_ptr<writer_log> writer = std::make_shared<writer_log>();
  std::shared_ptr<std::vector<event_record>> events = std::make_shared<std::vector<event_record>>();
  std::shared_ptr<kind_log> log = std::make_shared<kind_log>();
  controller_context ctx;
  caf::scoped_actor parent{sys};
};

const kind_spec on{true, R"({"enabled":true})"};
const kind_spec off{false, R"({"enabled":false})"};

} // namespace

BOOST_FIXTURE_TEST_SUITE(request, request_fixture)

BOOST_AUTO_TEST_CASE(every_enabled_kind_runs_in_registry_order_and_outcomes_combine) {
  std::vector<optimization_kind> registry{mock_kind("aKind", log, counts(3, 0, 0)),
                                          mock_kind("bKind", log, counts(0, 0, 2))};
  // The spec lists the kinds in another order: the registry's decides.
  start(request({{"bKind", kind_spec{true, R"({"enabled":true,"x":1})"}}, {"aKind", on}}), registry);
  BOOST_CHECK((*log == kind_log{R"(aKind {"enabled":true})", R"(bKind {"enabled":true,"x":1})"}));
  BOOST_REQUIRE_EQUAL(writer->outcomes.size(), 1u);
  BOOST_CHECK_EQUAL(writer->outcomes[0].status, request_status::partial_success);
  BOOST_CHECK_EQUAL(writer->outcomes[0].reason, "bKind: 2 candidates outstanding: 2 failed");
}

BOOST_AUTO_TEST_CASE(disabled_absent_and_unknown_kinds_do_not_run) {
  std::vector<optimization_kind> registry{mock_kind("aKind", log, counts(0, 1, 0)),
                                          mock_kind("bKind", log, counts(9, 0, 0)),
                                          mock_kind("cKind", log, counts(9, 0, 0))};
  start(request({{"aKind", on}, {"bKind", off}, {"zKind", on}}), registry);
  BOOST_CHECK((*log == kind_log{R"(aKind {"enabled":true})"}));
  BOOST_REQUIRE_EQUAL(writer->outcomes.size(), 1u);
  // One enabled kind: its outcome and reason exactly, as with a single kind.
  BOOST_CHECK_EQUAL(writer->outcomes[0].status, request_status::partial_success);
  BOOST_CHECK_EQUAL(writer->outcomes[0].reason, "1 candidate outstanding: 1 skipped");
}

BOOST_AUTO_TEST_CASE(no_kind_named_is_successful_with_reason) {
  std::vector<optimization_kind> registry{mock_kind("aKind", log, counts(1, 0, 0))};
  start(request({}), registry);
  BOOST_CHECK(log->empty());
  BOOST_REQUIRE_EQUAL(writer->outcomes.size(), 1u);
  BOOST_CHECK_EQUAL(writer->outcomes[0].status, request_status::successful);
  BOOST_CHECK_EQUAL(writer->outcomes[0].reason, "no optimization kind enabled");
}

BOOST_AUTO_TEST_CASE(invalid_spec_runs_no_kind) {
  std::vector<optimization_kind> registry{mock_kind("aKind", log, counts(1, 0, 0))};
  auto so = request({{"aKind", on}});
  so.spec.invalid = "spec.aKind.enabled: expected boolean, got string";
  start(so, registry);
  BOOST_CHECK(log->empty());
  BOOST_REQUIRE_EQUAL(writer->outcomes.size(), 1u);
  BOOST_CHECK_EQUAL(writer->outcomes[0].status, request_status::failed);
  BOOST_CHECK_EQUAL(writer->outcomes[0].reason,
                    "invalid spec.aKind.enabled: expected boolean, got string");
}

BOOST_AUTO_TEST_CASE(a_stop_reaches_the_running_kind_and_starts_no_other) {
  std::vector<optimization_kind> registry{mock_kind("aKind", log, counts(1, 0, 0), true),
                                          mock_kind("bKind", log, counts(1, 0, 0))};
  auto aut = start(request({{"aKind", on}, {"bKind", on}}), registry);
  BOOST_CHECK((*log == kind_log{R"(aKind {"enabled":true})"})); // waiting
  caf::anon_send(aut, atom::stop_v);
  sched.run();
  BOOST_CHECK((*log == kind_log{R"(aKind {"enabled":true})", "aKind stop"}));
  BOOST_CHECK(writer->outcomes.empty()); // a deleted request gets no outcome
  BOOST_CHECK((writer->closes == std::vector<std::string>{"uid-r"}));
}

BOOST_AUTO_TEST_SUITE_END()
