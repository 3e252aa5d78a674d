// docs/design.md §1.2: one request at a time, oldest first, running ones resumed, others Pending.
#include <boost/test/unit_test.hpp>

#include "model/request_queue.hpp"

using namespace schedopt;

namespace {

scheduling_optimization req(const std::string& name, const std::string& created,
                            request_stage stage = request_stage::none) {
  scheduling_optimization r;
  r.metadata.name = name;
  r.metadata.uid = name; // decisions name uids; here each name is its own uid
  r.metadata.creation_timestamp = created;
  r.status.stage = stage;
  return r;
}

} // namespace

BOOST_AUTO_TEST_SUITE(request_queue)

BOOST_AUTO_TEST_CASE(empty_and_all_final) {
  auto d = decide_queue({});
  BOOST_CHECK(!d.run);
  BOOST_CHECK_EQUAL(d.open, 0u);
  d = decide_queue({req("a", "2026-11-30T10:00:00Z", request_stage::final_)});
  BOOST_CHECK(!d.run);
  BOOST_CHECK(d.to_pending.empty());
  BOOST_CHECK_EQUAL(d.open, 0u);
}

BOOST_AUTO_TEST_CASE(oldest_first_then_name) {
  auto d = decide_queue({req("c", "2026-11-30T10:00:01Z"), req("b", "2026-11-30T10:00:00Z"),
                         req("a", "2026-11-30T10:00:00Z"), req("old", "2026-11-30T09:00:00Z",
                                                               request_stage::final_)});
  BOOST_REQUIRE(d.run);
  BOOST_CHECK_EQUAL(*d.run, "a");
  BOOST_CHECK(!d.resume);
  BOOST_CHECK((d.to_pending == std::vector<std::string>{"b", "c"}));
}

BOOST_AUTO_TEST_CASE(offsets_are_compared_as_instants) {
  // 11:30+02:00 is 09:30Z: older than 10:00Z.
  auto d = decide_queue({req("utc", "2026-11-30T10:00:00Z"),
                         req("offset", "2026-11-30T11:30:00+02:00")});
  BOOST_CHECK_EQUAL(*d.run, "offset");
}

BOOST_AUTO_TEST_CASE(pending_ones_are_not_marked_again) {
  auto d = decide_queue({req("a", "2026-11-30T10:00:00Z"),
                         req("b", "2026-11-30T10:01:00Z", request_stage::pending),
                         req("c", "2026-11-30T10:02:00Z")});
  BOOST_CHECK_EQUAL(*d.run, "a");
  BOOST_CHECK((d.to_pending == std::vector<std::string>{"c"}));
  BOOST_CHECK_EQUAL(d.open, 3u); // the waiting gauge counts b too, though it is not re-marked
}

BOOST_AUTO_TEST_CASE(running_request_is_resumed_even_if_newer) {
  for (auto running_stage : {request_stage::evaluating, request_stage::migrating}) {
    auto d = decide_queue({req("older", "2026-11-30T10:00:00Z", request_stage::pending),
                           req("running", "2026-11-30T11:00:00Z", running_stage)});
    BOOST_CHECK_EQUAL(*d.run, "running");
    BOOST_CHECK(d.resume);
    BOOST_CHECK(d.to_pending.empty());
  }
}

BOOST_AUTO_TEST_CASE(a_second_interrupted_run_is_never_marked_pending) {
  // Two runs interrupted (Migrating and Evaluating): the older is resumed, the other is
  // left as it is and resumed next; neither is written back to Pending.
  auto d = decide_queue({req("new", "2026-11-30T09:00:00Z"),
                         req("second", "2026-11-30T10:30:00Z", request_stage::evaluating),
                         req("first", "2026-11-30T10:00:00Z", request_stage::migrating)});
  BOOST_CHECK_EQUAL(*d.run, "first");
  BOOST_CHECK(d.resume);
  BOOST_CHECK((d.to_pending == std::vector<std::string>{"new"}));
}

BOOST_AUTO_TEST_CASE(a_recreated_request_is_a_new_request) {
  // Same name, two uids: the old one Final, the re-created one new: it runs.
  auto old = req("a", "2026-11-30T10:00:00Z", request_stage::final_);
  auto recreated = req("a", "2026-11-30T10:05:00Z");
  recreated.metadata.uid = "a-2";
  auto d = decide_queue({old, recreated});
  BOOST_REQUIRE(d.run);
  BOOST_CHECK_EQUAL(*d.run, "a-2");
}

BOOST_AUTO_TEST_CASE(promotion_after_final) {
  auto d = decide_queue({req("a", "2026-11-30T10:00:00Z", request_stage::final_),
                         req("b", "2026-11-30T10:01:00Z", request_stage::pending)});
  BOOST_CHECK_EQUAL(*d.run, "b");
  BOOST_CHECK(!d.resume);
}

BOOST_AUTO_TEST_CASE(deleting_requests_are_ignored) {
  auto gone = req("a", "2026-11-30T10:00:00Z");
  gone.metadata.deletion_timestamp = "2026-11-30T10:05:00Z";
  auto d = decide_queue({gone, req("b", "2026-11-30T10:01:00Z")});
  BOOST_CHECK_EQUAL(*d.run, "b");
  BOOST_CHECK(d.to_pending.empty());
}

BOOST_AUTO_TEST_CASE(requests_beyond_max_pending_are_rejected_newest_first) {
  std::vector<scheduling_optimization> all = {
    req("running", "2026-11-30T10:00:00Z", request_stage::migrating),
    req("waiting", "2026-11-30T10:01:00Z", request_stage::pending),
    req("new-1", "2026-11-30T10:02:00Z"), req("new-2", "2026-11-30T10:03:00Z"),
    req("new-3", "2026-11-30T10:04:00Z")};
  std::vector<const scheduling_optimization*> borrowed;
  for (auto& r : all)
    borrowed.push_back(&r);
  auto d = decide_queue_borrowed(borrowed, 2);
  BOOST_REQUIRE(d.run);
  BOOST_CHECK_EQUAL(*d.run, "running");
  BOOST_CHECK((d.to_pending == std::vector<std::string>{"new-1"}));
  BOOST_CHECK((d.to_reject == std::vector<std::string>{"new-2", "new-3"}));
  BOOST_CHECK_EQUAL(d.open, 3u);
  auto unbounded = decide_queue_borrowed(borrowed);
  BOOST_CHECK(unbounded.to_reject.empty());
  BOOST_CHECK_EQUAL(unbounded.to_pending.size(), 3u);
}

BOOST_AUTO_TEST_SUITE_END()
