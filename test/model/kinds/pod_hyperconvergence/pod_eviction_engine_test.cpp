// One run's evictions (eviction_engine.hpp), driven as the kind actor drives it: the
// owner's record before each eviction, slots held until the replacement settles, 429s
// retried while the window is open, outcomes, and what a restart leaves on the owner.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "model/kinds/pod_hyperconvergence/eviction_engine.hpp"
#include "model/kinds/pod_hyperconvergence/pod_test_world.hpp"

using namespace schedopt;
using namespace schedopt::test::pods;
using namespace std::chrono_literals;

namespace {

const timestamp t0 = at("2026-11-30T12:00:00Z");

eviction_candidate candidate(const std::string& name, const std::string& node,
                             const std::string& owner = "db",
                             workload_kind kind = workload_kind::stateful_set) {
  pod p = make_pod("ns", name, node);
  p.metadata.owner_references.push_back(
    controller(kind == workload_kind::stateful_set ? "StatefulSet" : "ReplicaSet", owner));
  eviction_candidate c;
  c.target = std::make_shared<const pod>(p);
  c.owner = {kind, "ns", owner, "uid-" + owner};
  c.best_nodes = {"n2"};
  c.target_nodes = {"n2"};
  return c;
}

eviction_decision answer(eviction_verdict v, std::string message = {},
                         std::chrono::seconds retry_after = 0s) {
  return {v, std::move(message), retry_after};
}

engine_settings settings(std::size_t parallel = 2) {
  engine_settings s;
  s.max_parallel = parallel;
  s.request_uid = "req-1";
  s.ready_timeout = 10min;
  return s;
}

pod replacement(const std::string& name, const std::string& uid, const std::string& node,
                bool ready = true) {
  pod p = make_pod("ns", name, node);
  p.metadata.uid = uid;
  p.metadata.owner_references.push_back(controller("StatefulSet", "db"));
  p.metadata.creation_timestamp = "2026-11-30T12:00:30Z";
  if (!ready)
    p.conditions = {{"Ready", "False", "", "", ""}};
  return p;
}

nlohmann::json annotations_of(const owner_write& w) {
  return nlohmann::json::parse(w.patch)["metadata"]["annotations"];
}

} // namespace

BOOST_AUTO_TEST_SUITE(pod_eviction_engine)

BOOST_AUTO_TEST_CASE(the_owner_is_recorded_before_the_pod_is_evicted) {
  eviction_engine e{settings(), t0};
  e.add(candidate("db-0", "n1"), {});
  BOOST_CHECK(e.take_evictions().empty()); // nothing before the record
  auto writes = e.take_owner_writes(t0);
  BOOST_REQUIRE_EQUAL(writes.size(), 1u);
  BOOST_CHECK_EQUAL(writes[0].workload, "StatefulSet ns/db");
  BOOST_CHECK_EQUAL(writes[0].holder.resource, "statefulsets");
  auto a = annotations_of(writes[0]);
  BOOST_CHECK_EQUAL(a[default_pod_cool_off_annotation], "2026-11-30T12:00:00Z");
  BOOST_CHECK_EQUAL(a[cool_off_request_annotation(default_pod_cool_off_annotation)], "req-1");
  BOOST_CHECK_EQUAL(a[eviction_ledger_annotation(default_pod_cool_off_annotation)],
                    "db-0/uid-db-0/2026-11-30T12:00:00Z/n2");
  BOOST_CHECK(e.take_evictions().empty()); // the write is still in flight
  e.owner_written("StatefulSet ns/db", "", t0);
  auto calls = e.take_evictions();
  BOOST_REQUIRE_EQUAL(calls.size(), 1u);
  BOOST_CHECK_EQUAL(calls[0].uid, "uid-db-0");
  BOOST_CHECK(!e.finished());
}

BOOST_AUTO_TEST_CASE(one_write_per_owner_at_a_time_each_carrying_the_whole_ledger) {
  eviction_engine e{settings(3), t0};
  e.add(candidate("db-0", "n1"), {});
  e.add(candidate("db-1", "n1"), {});
  auto first = e.take_owner_writes(t0);
  BOOST_REQUIRE_EQUAL(first.size(), 1u); // both entries in one write
  BOOST_CHECK_EQUAL(annotations_of(first[0])[eviction_ledger_annotation(default_pod_cool_off_annotation)],
                    "db-0/uid-db-0/2026-11-30T12:00:00Z/n2,db-1/uid-db-1/2026-11-30T12:00:00Z/n2");
  e.add(candidate("db-2", "n1"), {});
  BOOST_CHECK(e.take_owner_writes(t0 + 1s).empty()); // db-2 waits for the write in flight
  e.owner_written("StatefulSet ns/db", "", t0 + 1s);
  BOOST_CHECK_EQUAL(e.take_evictions().size(), 2u);
  auto second = e.take_owner_writes(t0 + 1s);
  BOOST_REQUIRE_EQUAL(second.size(), 1u);
  auto ledger = annotations_of(second[0])[eviction_ledger_annotation(default_pod_cool_off_annotation)]
                  .get<std::string>();
  BOOST_CHECK(ledger.find("db-0/") != std::string::npos);
  BOOST_CHECK(ledger.find("db-2/uid-db-2/2026-11-30T12:00:01Z") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(slots_are_held_until_the_replacement_is_ready_on_a_best_node) {
  eviction_engine e{settings(1), t0};
  e.add(candidate("db-0", "n1"), {});
  e.add(candidate("db-1", "n1"), {});
  e.take_owner_writes(t0);
  e.owner_written("StatefulSet ns/db", "", t0);
  auto calls = e.take_evictions();
  BOOST_REQUIRE_EQUAL(calls.size(), 1u);
  e.eviction_answered(calls[0].key, answer(eviction_verdict::evicted), t0 + 1s);
  auto accepted = e.take_accepted();
  BOOST_REQUIRE_EQUAL(accepted.size(), 1u);
  BOOST_CHECK_EQUAL(accepted[0].key, "ns/db-0");
  BOOST_CHECK(e.take_owner_writes(t0 + 2s).empty()); // the one slot awaits db-0's replacement
  BOOST_CHECK_EQUAL(e.awaiting(), 1u);
  e.observe(share_all(std::vector<pod>{replacement("db-0", "uid-new", "n2", false)}), t0 + 20s);
  BOOST_CHECK(e.take_outcomes().empty());
  e.observe(share_all(std::vector<pod>{replacement("db-0", "uid-new", "n2")}), t0 + 30s);
  auto outcomes = e.take_outcomes();
  BOOST_REQUIRE_EQUAL(outcomes.size(), 1u);
  BOOST_CHECK(outcomes[0].status == pod_result::successful);
  BOOST_CHECK_EQUAL(outcomes[0].name, "db-0");
  BOOST_CHECK_EQUAL(e.take_owner_writes(t0 + 30s).size(), 1u); // db-1 goes now
}

BOOST_AUTO_TEST_CASE(a_replacement_ready_elsewhere_or_never_ready_fails) {
  eviction_engine e{settings(2), t0};
  e.add(candidate("db-0", "n1"), {});
  e.add(candidate("db-1", "n1"), {});
  e.take_owner_writes(t0);
  e.owner_written("StatefulSet ns/db", "", t0);
  for (auto& c : e.take_evictions())
    e.eviction_answered(c.key, answer(eviction_verdict::evicted), t0);
  e.observe(share_all(std::vector<pod>{replacement("db-0", "uid-new", "n3")}), t0 + 30s);
  auto off = e.take_outcomes();
  BOOST_REQUIRE_EQUAL(off.size(), 1u);
  BOOST_CHECK(off[0].status == pod_result::failed);
  BOOST_CHECK_EQUAL(off[0].reason, "RescheduledOffReplica: n3");
  BOOST_CHECK(e.next_wakeup() == t0 + 10min); // db-1's podReadyTimeout
  e.observe({}, t0 + 10min);
  auto late = e.take_outcomes();
  BOOST_REQUIRE_EQUAL(late.size(), 1u);
  BOOST_CHECK_EQUAL(late[0].reason, "ReplacementNotReady: no replacement of db-1 after 10m0s");
  BOOST_CHECK(e.finished());
}

BOOST_AUTO_TEST_CASE(a_blocked_eviction_gives_its_slot_back_and_retries_while_the_window_is_open) {
  eviction_engine e{settings(1), t0};
  e.add(candidate("db-0", "n1"), {});
  e.add(candidate("web-0", "n1", "web"), {});
  auto writes = e.take_owner_writes(t0);
  BOOST_REQUIRE_EQUAL(writes.size(), 1u);
  e.owner_written(writes[0].workload, "", t0);
  auto calls = e.take_evictions();
  BOOST_REQUIRE_EQUAL(calls.size(), 1u);
  e.eviction_answered(calls[0].key, answer(eviction_verdict::blocked, "needs 2 healthy pods"), t0);
  // The slot went to the next candidate; db-0 waits its 5 s behind it.
  writes = e.take_owner_writes(t0);
  BOOST_REQUIRE_EQUAL(writes.size(), 1u);
  BOOST_CHECK_EQUAL(writes[0].workload, "StatefulSet ns/web");
  e.owner_written(writes[0].workload, "", t0);
  calls = e.take_evictions();
  BOOST_REQUIRE_EQUAL(calls.size(), 1u);
  e.eviction_answered(calls[0].key, answer(eviction_verdict::failed, "EvictionFailed: forbidden"), t0);
  auto failed = e.take_outcomes();
  BOOST_REQUIRE_EQUAL(failed.size(), 1u);
  BOOST_CHECK_EQUAL(failed[0].reason, "EvictionFailed: forbidden");
  // The failed one's record is put back as it was (nothing there before: removed).
  writes = e.take_owner_writes(t0 + 1s);
  BOOST_REQUIRE_EQUAL(writes.size(), 1u);
  BOOST_CHECK(annotations_of(writes[0])[default_pod_cool_off_annotation].is_null());
  e.owner_written(writes[0].workload, "", t0 + 1s);
  BOOST_CHECK(e.next_wakeup() == t0 + 5s);
  BOOST_CHECK(e.take_owner_writes(t0 + 4s).empty());
  BOOST_CHECK(e.take_owner_writes(t0 + 5s).empty()); // recorded already: straight to the POST
  calls = e.take_evictions();
  BOOST_REQUIRE_EQUAL(calls.size(), 1u);
  BOOST_CHECK_EQUAL(calls[0].key, "ns/db-0");
  e.eviction_answered(calls[0].key, answer(eviction_verdict::blocked, "needs 2 healthy pods"), t0 + 5s);
  BOOST_CHECK(e.next_wakeup() == t0 + 15s); // 5 s doubling
  // Nothing evicted, nothing awaited: the window closes settle_grace after it opened.
  auto closes = t0 + eviction_window::default_settle_grace;
  e.advance(closes - 1s);
  BOOST_CHECK(!e.window_closed());
  e.advance(closes);
  BOOST_CHECK(e.window_closed());
  auto skipped = e.take_outcomes();
  BOOST_REQUIRE_EQUAL(skipped.size(), 1u);
  BOOST_CHECK(skipped[0].status == pod_result::skipped);
  BOOST_CHECK_EQUAL(skipped[0].reason, "DisruptionBudget: needs 2 healthy pods");
  writes = e.take_owner_writes(closes); // db's record restored too
  BOOST_REQUIRE_EQUAL(writes.size(), 1u);
  BOOST_CHECK(annotations_of(writes[0])[cool_off_request_annotation(default_pod_cool_off_annotation)].is_null());
  e.owner_written(writes[0].workload, "", closes);
  BOOST_CHECK(e.finished());
}

BOOST_AUTO_TEST_CASE(the_window_stays_open_while_a_replacement_is_awaited) {
  eviction_engine e{settings(2), t0};
  e.add(candidate("db-0", "n1"), {});
  e.add(candidate("db-1", "n1"), {});
  e.take_owner_writes(t0);
  e.owner_written("StatefulSet ns/db", "", t0);
  auto calls = e.take_evictions();
  BOOST_REQUIRE_EQUAL(calls.size(), 2u);
  e.eviction_answered("ns/db-0", answer(eviction_verdict::evicted), t0);
  e.eviction_answered("ns/db-1", answer(eviction_verdict::blocked, "budget", 10s), t0);
  e.advance(t0 + 5min); // db-0's replacement is still awaited
  BOOST_CHECK(!e.window_closed());
  BOOST_CHECK(e.take_owner_writes(t0 + 5min).empty());
  calls = e.take_evictions();
  BOOST_REQUIRE_EQUAL(calls.size(), 1u); // the retry, its record standing
  e.observe(share_all(std::vector<pod>{replacement("db-0", "uid-new", "n2")}), t0 + 5min);
  e.eviction_answered("ns/db-1", answer(eviction_verdict::evicted), t0 + 5min);
  BOOST_CHECK_EQUAL(e.take_outcomes().size(), 1u);
  BOOST_CHECK_EQUAL(e.awaiting(), 1u);
}

BOOST_AUTO_TEST_CASE(an_unwritable_record_means_no_eviction) {
  eviction_engine e{settings(), t0};
  e.add(candidate("db-0", "n1"), {});
  auto writes = e.take_owner_writes(t0);
  e.owner_written(writes[0].workload, "statefulsets.apps \"db\" is forbidden", t0);
  BOOST_CHECK(e.take_evictions().empty());
  auto outcomes = e.take_outcomes();
  BOOST_REQUIRE_EQUAL(outcomes.size(), 1u);
  BOOST_CHECK_EQUAL(outcomes[0].reason, "EvictionFailed: cool-off record not written on "
                                        "StatefulSet ns/db: statefulsets.apps \"db\" is forbidden");
}

BOOST_AUTO_TEST_CASE(past_the_run_deadline_nothing_new_is_sent) {
  auto s = settings(1);
  s.run_deadline = t0 + 1h;
  eviction_engine e{s, t0};
  e.add(candidate("db-0", "n1"), {});
  e.add(candidate("db-1", "n1"), {});
  e.take_owner_writes(t0);
  e.owner_written("StatefulSet ns/db", "", t0);
  e.eviction_answered(e.take_evictions().at(0).key, answer(eviction_verdict::evicted), t0);
  e.advance(t0 + 1h);
  BOOST_CHECK(e.window_closed());
  BOOST_CHECK_EQUAL(e.outstanding().size(), 1u); // db-1 never tried
  BOOST_CHECK_EQUAL(e.outstanding()[0], "ns/db-1");
  e.observe(share_all(std::vector<pod>{replacement("db-0", "uid-new", "n2")}), t0 + 1h);
  BOOST_CHECK_EQUAL(e.take_outcomes().size(), 1u); // the one in flight still ends
}

BOOST_AUTO_TEST_CASE(a_stop_leaves_the_waiting_outstanding_and_lets_in_flight_finish) {
  eviction_engine e{settings(1), t0};
  e.add(candidate("db-0", "n1"), {});
  e.add(candidate("db-1", "n1"), {});
  e.take_owner_writes(t0);
  e.stop();
  e.owner_written("StatefulSet ns/db", "", t0);
  BOOST_CHECK(e.take_evictions().empty()); // recorded, but the request is gone
  BOOST_CHECK_EQUAL(e.outstanding().size(), 2u);
  BOOST_CHECK_EQUAL(e.take_owner_writes(t0).size(), 1u); // the record is put back
  e.owner_written("StatefulSet ns/db", "", t0);
  BOOST_CHECK(e.finished());
}

BOOST_AUTO_TEST_CASE(a_resumed_eviction_is_adopted_and_judged_never_sent_again) {
  string_map annotations{
    {default_pod_cool_off_annotation, "2026-11-30T11:59:00Z"},
    {cool_off_request_annotation(default_pod_cool_off_annotation), "req-1"},
    {eviction_ledger_annotation(default_pod_cool_off_annotation),
     "db-0/uid-db-0/2026-11-30T11:59:00Z/n2,db-1/uid-db-1/2026-11-30T11:59:00Z/n2"}};
  eviction_engine e{settings(1), t0};
  workload_ref db{workload_kind::stateful_set, "ns", "db", "uid-db"};
  auto entries = read_eviction_ledger(annotations, default_pod_cool_off_annotation, "req-1");
  BOOST_REQUIRE_EQUAL(entries.size(), 2u);
  e.adopt(evicted_from_ledger(entries[0], db), annotations, t0);
  BOOST_CHECK_EQUAL(e.awaiting(), 1u);
  BOOST_CHECK(e.next_wakeup() == t0 + 10min); // from the resume, not from the record
  // db-1 was recorded but never evicted: a candidate again, its record standing.
  e.add(candidate("db-1", "n1"), annotations);
  BOOST_CHECK(e.take_owner_writes(t0).empty()); // the adopted one holds the only slot
  e.observe(share_all(std::vector<pod>{replacement("db-0", "uid-new", "n2")}), t0 + 1s);
  BOOST_CHECK_EQUAL(e.take_outcomes().size(), 1u);
  BOOST_CHECK(e.take_owner_writes(t0 + 1s).empty());
  auto calls = e.take_evictions();
  BOOST_REQUIRE_EQUAL(calls.size(), 1u);
  BOOST_CHECK_EQUAL(calls[0].key, "ns/db-1");
}

BOOST_AUTO_TEST_CASE(replicaset_replacements_are_claimed_one_per_eviction) {
  eviction_engine e{settings(2), t0};
  e.add(candidate("web-a", "n1", "web", workload_kind::replica_set), {});
  e.add(candidate("web-b", "n1", "web", workload_kind::replica_set), {});
  e.take_owner_writes(t0);
  e.owner_written("ReplicaSet ns/web", "", t0);
  for (auto& c : e.take_evictions())
    e.eviction_answered(c.key, answer(eviction_verdict::evicted), t0);
  auto fresh = [](const std::string& name, const std::string& node, const char* created) {
    pod p = make_pod("ns", name, node);
    p.metadata.uid = "uid-" + name;
    p.metadata.owner_references.push_back(controller("ReplicaSet", "web"));
    p.metadata.creation_timestamp = created;
    return p;
  };
  e.observe(share_all(std::vector<pod>{fresh("web-x", "n2", "2026-11-30T12:00:10Z"),
                                       fresh("web-y", "n3", "2026-11-30T12:00:11Z")}),
            t0 + 20s);
  auto outcomes = e.take_outcomes();
  BOOST_REQUIRE_EQUAL(outcomes.size(), 2u);
  int off = 0;
  for (auto& o : outcomes)
    off += o.status == pod_result::failed;
  BOOST_CHECK_EQUAL(off, 1); // one each: web-x on n2, web-y on n3
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(pod_eviction_ledger)

BOOST_AUTO_TEST_CASE(only_this_requests_ledger_is_read) {
  string_map a{{default_pod_cool_off_annotation, "2026-11-30T11:59:00Z"},
               {cool_off_request_annotation(default_pod_cool_off_annotation), "req-0"},
               {eviction_ledger_annotation(default_pod_cool_off_annotation),
                "db-0/u0/2026-11-30T11:59:00Z/n1+n2,bad,db-1/u1/not-a-time/n1"}};
  BOOST_CHECK(read_eviction_ledger(a, default_pod_cool_off_annotation, "req-1").empty());
  auto mine = read_eviction_ledger(a, default_pod_cool_off_annotation, "req-0");
  BOOST_REQUIRE_EQUAL(mine.size(), 1u); // the two malformed entries are left out
  BOOST_CHECK_EQUAL(mine[0].uid, "u0");
  BOOST_CHECK((mine[0].best_nodes == std::vector<std::string>{"n1", "n2"}));
  BOOST_CHECK_EQUAL(format_eviction_ledger(mine), "db-0/u0/2026-11-30T11:59:00Z/n1+n2");
}

BOOST_AUTO_TEST_CASE(the_last_entry_out_restores_the_record_before_the_run) {
  string_map before{{default_pod_cool_off_annotation, "2026-11-29T00:00:00Z"}};
  auto patch = eviction_record_patch(default_pod_cool_off_annotation, "req-1", {}, before);
  auto& a = patch["metadata"]["annotations"];
  BOOST_CHECK_EQUAL(a[default_pod_cool_off_annotation], "2026-11-29T00:00:00Z");
  BOOST_CHECK(a[cool_off_request_annotation(default_pod_cool_off_annotation)].is_null());
  BOOST_CHECK(a[eviction_ledger_annotation(default_pod_cool_off_annotation)].is_null());
  std::vector<ledger_entry> two{{"a", "u", at("2026-11-30T12:00:00Z"), {}},
                                {"b", "v", at("2026-11-30T12:05:00Z"), {}}};
  auto written = eviction_record_patch(default_pod_cool_off_annotation, "req-1", two, before);
  BOOST_CHECK_EQUAL(written["metadata"]["annotations"][default_pod_cool_off_annotation],
                    "2026-11-30T12:05:00Z"); // the latest eviction
}

BOOST_AUTO_TEST_SUITE_END()
