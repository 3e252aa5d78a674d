// The podHyperconvergence kind actor end to end with mocks: informer snapshots of a few
// stateful pods, the real csi-topology driver, a recording API that answers evictions as
// told, a recording status writer. Time is the test clock's.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <caf/scoped_actor.hpp>

#include "actor_fixture.hpp"
#include "actors/clock.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_hyperconvergence_actor.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_informers.hpp"
#include "k8s/metrics.hpp"
#include "model/kinds/pod_hyperconvergence/eviction_ledger.hpp"
#include "model/kinds/pod_hyperconvergence/pod_spec.hpp"

using namespace schedopt;
using namespace schedopt::test;
using namespace schedopt::pod_hyperconvergence;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::string key = default_pod_cool_off_annotation;

node ready_node(const std::string& name) {
  node n;
  n.metadata.name = name;
  n.ready = true;
  return n;
}

owner_reference controller(const std::string& kind, const std::string& name) {
  owner_reference o;
  o.api_version = "apps/v1";
  o.kind = kind;
  o.name = name;
  o.uid = "uid-" + name;
  o.controller = true;
  return o;
}

const char* budget_429 = R"({"kind":"Status","apiVersion":"v1","status":"Failure",
  "message":"Cannot evict pod as it would violate the pod's disruption budget.",
  "reason":"TooManyRequests","details":{"causes":[{"reason":"DisruptionBudget",
  "message":"The disruption budget db needs 2 healthy pods and has 2 currently"}]},"code":429})";

struct pod_kind_fixture : actor_fixture {
  pod_kind_fixture() {
    node_log->objects = {ready_node("n1"), ready_node("n2"), ready_node("n3")};
    add_pod("db-0", "n3", {"n1", "n2"}, "StatefulSet", "db");    // misplaced: evicted
    add_pod("db-1", "n1", {"n1"}, "StatefulSet", "db");          // hyperconverged
    add_pod("tool-0", "n3", {"n1"}, "", "");                     // bare: NoController
    add_pod("web-a", "n3", {"n2"}, "ReplicaSet", "web", "default-scheduler");
    stateful_set db;
    db.metadata.namespace_ = "ns";
    db.metadata.name = "db";
    db.metadata.uid = "uid-db";
    db.replicas = 2;
    sts_log->objects = {db};
    replica_set web;
    web.metadata.namespace_ = "ns";
    web.metadata.name = "web";
    web.metadata.uid = "uid-web";
    rs_log->objects = {web};
    ctx.api = track(spawn_mock_api(sys, api));
    // The kind's own informers, filed as the controller stack files its start_services'.
    pod_informers informers;
    informers.pods = track(spawn_mock_informer(sys, pod_log));
    informers.stateful_sets = track(spawn_mock_informer(sys, sts_log));
    informers.replica_sets = track(spawn_mock_informer(sys, rs_log));
    informers.pod_disruption_budgets = track(spawn_mock_informer(sys, pdb_log));
    set_kind_handles(ctx, kind_field, informers);
    ctx.vmis = track(spawn_mock_informer(sys, vmi_log));
    ctx.vmims = track(spawn_mock_informer(sys, vmim_log));
    ctx.pvcs = track(spawn_mock_informer(sys, pvc_log));
    ctx.pvs = track(spawn_mock_informer(sys, pv_log));
    ctx.nodes = track(spawn_mock_informer(sys, node_log));
    ctx.status = track(spawn_mock_status_writer(sys, writer));
    ctx.events = track(spawn_mock_event_recorder(sys, events));
    auto entry = find_storage_driver("csi-topology");
    BOOST_REQUIRE(entry);
    ctx.driver = *entry;
    auto driver = entry->spawn(sys, ctx.config);
    BOOST_REQUIRE(driver);
    ctx.driver_actor = track(*driver);
  }

  pod& add_pod(const std::string& name, const std::string& host, std::vector<std::string> replicas,
               const std::string& owner_kind, const std::string& owner,
               const std::string& scheduler = "stork") {
    pod p;
    p.metadata.namespace_ = "ns";
    p.metadata.name = name;
    p.metadata.uid = "uid-" + name;
    p.metadata.creation_timestamp = "2026-11-30T11:00:00Z";
    if (!owner_kind.empty())
      p.metadata.owner_references.push_back(controller(owner_kind, owner));
    p.node_name = host;
    p.scheduler_name = scheduler;
    p.phase = "Running";
    p.conditions.push_back({"Ready", "True", "", "", ""});
    p.claim_names = {"data-" + name};
    persistent_volume_claim pvc;
    pvc.metadata.namespace_ = "ns";
    pvc.metadata.name = "data-" + name;
    pvc.volume_name = "pv-" + name;
    pvc_log->objects.push_back(pvc);
    persistent_volume pv;
    pv.metadata.name = "pv-" + name;
    pv.csi_driver = "local.csi.io";
    pv.volume_handle = "h-" + name;
    pv.affinity_hostnames = std::move(replicas);
    pv_log->objects.push_back(pv);
    pod_log->objects.push_back(p);
    return pod_log->objects.back();
  }

  /// db-0 replaced: the StatefulSet's new pod of that name, Ready on `host`.
  void replace_db0(const std::string& host) {
    auto& pods = pod_log->objects;
    pods.erase(std::remove_if(pods.begin(), pods.end(),
                              [](const pod& p) { return p.metadata.name == "db-0"; }),
               pods.end());
    pod p;
    p.metadata.namespace_ = "ns";
    p.metadata.name = "db-0";
    p.metadata.uid = "uid-db-0-new";
    p.metadata.owner_references.push_back(controller("StatefulSet", "db"));
    p.node_name = host;
    p.scheduler_name = "stork";
    p.phase = "Running";
    p.conditions.push_back({"Ready", "True", "", "", ""});
    p.claim_names = {"data-db-0"};
    pods.push_back(p);
  }

  scheduling_optimization request() const {
    scheduling_optimization so;
    so.metadata.name = "so1";
    so.metadata.uid = "req-uid-1";
    so.metadata.generation = 1;
    so.spec.kinds[kind_field] = kind_spec{true, R"({"enabled":true})"};
    return so;
  }

  std::shared_ptr<reply_slot<kind_result>> run_kind(scheduling_optimization so, bool resume = false) {
    auto aut = track(spawn_pod_hyperconvergence(parent.ptr(), ctx));
    kind = aut;
    auto spec = so.spec.kinds.at(kind_field);
    auto result = ask<kind_result>(sys, aut, kind_run{std::move(so), spec, resume});
    sched.run();
    return result;
  }

  std::vector<detail_result> results_of(detail_status s) const {
    std::vector<detail_result> out;
    for (auto& r : writer->results)
      if (r.detail.status == s)
        out.push_back(r);
    return out;
  }

  std::shared_ptr<api_log> api = std::make_shared<api_log>();
  std::shared_ptr<informer_log<pod>> pod_log = std::make_shared<informer_log<pod>>();
  std::shared_ptr<informer_log<stateful_set>> sts_log = std::make_shared<informer_log<stateful_set>>();
  std::shared_ptr<informer_log<replica_set>> rs_log = std::make_shared<informer_log<replica_set>>();
  std::shared_ptr<informer_log<pod_disruption_budget>> pdb_log =
    std::make_shared<informer_log<pod_disruption_budget>>();
  std::shared_ptr<informer_log<virtual_machine_instance>> vmi_log =
    std::make_shared<informer_log<virtual_machine_instance>>();
  std::shared_ptr<informer_log<virtual_machine_instance_migration>> vmim_log =
    std::make_shared<informer_log<virtual_machine_instance_migration>>();
  std::shared_ptr<informer_log<persistent_volume_claim>> pvc_log =
    std::make_shared<informer_log<persistent_volume_claim>>();
  std::shared_ptr<informer_log<persistent_volume>> pv_log =
    std::make_shared<informer_log<persistent_volume>>();
  std::shared_ptr<informer_log<node>> node_log = std::make_shared<informer_log<node>>();
  std::shared_ptr<writer_log> writer = std::make_shared<writer_log>();
  std::shared_ptr<std::vector<event_record>> events = std::make_shared<std::vector<event_record>>();
  controller_context ctx;
  caf::scoped_actor parent{sys};
  pod_hyperconvergence_actor kind;
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(pod_hyperconvergence_kind, pod_kind_fixture)

BOOST_AUTO_TEST_CASE(records_the_owner_then_evicts_and_judges_the_replacement) {
  auto result = run_kind(request());

  // Skips first, then the Migrating stage, the owner's record, the eviction.
  BOOST_REQUIRE_EQUAL(writer->reserved.size(), 1u);
  BOOST_CHECK_EQUAL(writer->reserved.front().second, 1);
  auto skips = results_of(detail_status::skipped);
  BOOST_REQUIRE_EQUAL(skips.size(), 2u);
  BOOST_CHECK_EQUAL(skips[0].kind, "podHyperconvergence");
  std::set<std::string> reasons;
  for (auto& s : skips)
    reasons.insert(s.detail.reason.substr(0, s.detail.reason.find(':')));
  BOOST_CHECK((reasons == std::set<std::string>{"NoController", "SchedulerNotStorageAware"}));
  BOOST_REQUIRE_EQUAL(writer->stages.size(), 1u);
  BOOST_CHECK_EQUAL(writer->stages.front().stage, request_stage::migrating);

  BOOST_REQUIRE_GE(api->calls.size(), 2u);
  auto patches = api->calls_of("patch");
  BOOST_REQUIRE_EQUAL(patches.size(), 1u);
  BOOST_CHECK(patches[0].res == k8s::resources::stateful_sets);
  BOOST_CHECK_EQUAL(patches[0].name, "db");
  auto annotations = json::parse(patches[0].body)["metadata"]["annotations"];
  BOOST_CHECK_EQUAL(annotations[cool_off_request_annotation(key)], "req-uid-1");
  BOOST_CHECK(annotations[eviction_ledger_annotation(key)].get<std::string>().rfind("db-0/uid-db-0/", 0)
              == 0);
  auto evictions = api->calls_of("evict");
  BOOST_REQUIRE_EQUAL(evictions.size(), 1u);
  BOOST_CHECK_EQUAL(evictions[0].name, "db-0");
  auto body = json::parse(evictions[0].body);
  BOOST_CHECK_EQUAL(body["deleteOptions"]["preconditions"]["uid"], "uid-db-0");
  // The record went before the eviction.
  auto first_patch = std::find_if(api->calls.begin(), api->calls.end(),
                                  [](auto& c) { return c.verb == "patch"; });
  auto first_evict = std::find_if(api->calls.begin(), api->calls.end(),
                                  [](auto& c) { return c.verb == "evict"; });
  BOOST_CHECK(first_patch < first_evict);
  BOOST_CHECK(std::any_of(events->begin(), events->end(), [](const event_record& e) {
    return e.reason == "Evicted" && e.involved.kind == "Pod" && e.involved.name == "db-0";
  }));

  BOOST_CHECK(!result->arrived()); // the replacement is awaited
  replace_db0("n2");
  advance(2s);
  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->successful, 1);
  BOOST_CHECK_EQUAL(result->value->skipped, 2);
  BOOST_CHECK_EQUAL(result->value->failed, 0);
  BOOST_CHECK(!result->value->run_failure);
  auto done = results_of(detail_status::successful);
  BOOST_REQUIRE_EQUAL(done.size(), 1u);
  BOOST_CHECK_EQUAL(done[0].detail.name, "db-0");
  BOOST_CHECK_EQUAL(api->calls_of("evict").size(), 1u); // never again
}

BOOST_AUTO_TEST_CASE(a_replacement_on_another_node_fails_rescheduled_off_replica) {
  auto result = run_kind(request());
  replace_db0("n3");
  advance(2s);
  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->failed, 1);
  auto failed = results_of(detail_status::failed);
  BOOST_REQUIRE_EQUAL(failed.size(), 1u);
  BOOST_CHECK_EQUAL(failed[0].detail.reason, "RescheduledOffReplica: n3");
  BOOST_CHECK(std::any_of(events->begin(), events->end(),
                          [](const event_record& e) { return e.reason == "EvictionFailed"; }));
}

BOOST_AUTO_TEST_CASE(a_budget_that_holds_until_the_window_closes_is_a_disruption_budget_skip) {
  api->eviction_answer = [](const api_call&) {
    return k8s::eviction_response{429, budget_429, "", ""};
  };
  auto result = run_kind(request());
  BOOST_CHECK_EQUAL(api->calls_of("evict").size(), 1u);
  advance(30s, 1s);
  auto tries = api->calls_of("evict").size();
  BOOST_CHECK_GE(tries, 3u); // 5 s, 10 s, 20 s
  BOOST_CHECK(!result->arrived());
  advance(3min, 1s);
  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->skipped, 3);
  auto skips = results_of(detail_status::skipped);
  BOOST_REQUIRE_EQUAL(skips.size(), 3u);
  BOOST_CHECK_EQUAL(skips.back().detail.name, "db-0");
  BOOST_CHECK_EQUAL(skips.back().detail.reason,
                    "DisruptionBudget: The disruption budget db needs 2 healthy pods and has 2 currently");
  // The record went back as it was: this workload was never disrupted.
  auto patches = api->calls_of("patch");
  BOOST_REQUIRE_EQUAL(patches.size(), 2u);
  BOOST_CHECK(json::parse(patches[1].body)["metadata"]["annotations"][key].is_null());
}

BOOST_AUTO_TEST_CASE(a_resumed_run_adopts_its_eviction_and_never_sends_it_again) {
  // Before the crash: db-0 recorded and evicted; its replacement already runs on n1.
  sts_log->objects[0].metadata.annotations = {
    {key, "2026-11-30T11:59:00Z"},
    {cool_off_request_annotation(key), "req-uid-1"},
    {eviction_ledger_annotation(key), "db-0/uid-db-0/2026-11-30T11:59:00Z/n1+n2"}};
  replace_db0("n1");
  auto so = request();
  so.status.stage = request_stage::migrating;
  so.status.kinds[kind_field] = kind_status_block{0, 2, 0, {}};
  auto result = run_kind(so, true);
  advance(2s);
  BOOST_REQUIRE(result->value);
  BOOST_CHECK(api->calls_of("evict").empty());
  BOOST_CHECK_EQUAL(result->value->successful, 1);
  BOOST_CHECK_EQUAL(result->value->skipped, 2); // recorded before; not counted again
  auto done = results_of(detail_status::successful);
  BOOST_REQUIRE_EQUAL(done.size(), 1u);
  BOOST_CHECK_EQUAL(done[0].detail.name, "db-0");
}

BOOST_AUTO_TEST_CASE(unlisted_informers_fail_the_run_naming_them) {
  pdb_log->synced = false;
  auto result = run_kind(request());
  advance(30s, 1s);
  BOOST_CHECK(!result->arrived());
  advance(31s, 1s);
  BOOST_REQUIRE(result->value);
  BOOST_REQUIRE(result->value->run_failure);
  BOOST_CHECK_EQUAL(result->value->run_failure->reason,
                    "cannot read poddisruptionbudgets: not listed within 1m0s (the controller's "
                    "log says why)");
  BOOST_CHECK(api->calls_of("evict").empty());
}

BOOST_AUTO_TEST_CASE(a_stop_waits_for_the_awaited_replacement_and_evicts_nothing_more) {
  add_pod("db-2", "n3", {"n2"}, "StatefulSet", "db");
  auto so = request();
  so.spec.kinds[kind_field] = kind_spec{true, R"({"enabled":true,"maxParallelEvictions":1})"};
  auto result = run_kind(so);
  BOOST_CHECK_EQUAL(api->calls_of("evict").size(), 1u);
  caf::anon_send(kind, atom::stop_v);
  sched.run();
  BOOST_CHECK(!result->arrived());
  replace_db0("n1");
  advance(2s);
  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(api->calls_of("evict").size(), 1u);
  BOOST_CHECK_EQUAL(result->value->successful, 1);
  BOOST_CHECK_EQUAL(result->value->outstanding.size(), 1u);
}

BOOST_AUTO_TEST_CASE(past_max_run_duration_the_untried_are_left_for_a_later_request) {
  add_pod("db-2", "n3", {"n2"}, "StatefulSet", "db");
  ctx.config.max_run_duration = std::chrono::minutes(1);
  auto so = request();
  so.spec.kinds[kind_field] = kind_spec{true, R"({"enabled":true,"maxParallelEvictions":1})"};
  auto result = run_kind(so);
  BOOST_CHECK_EQUAL(api->calls_of("evict").size(), 1u); // db-0; db-2 waits for the slot
  advance(61s, 1s); // db-0's replacement never comes; the run's time is up
  BOOST_CHECK_EQUAL(api->calls_of("evict").size(), 1u);
  replace_db0("n1");
  advance(2s);
  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->successful, 1);
  BOOST_CHECK((result->value->outstanding == std::vector<std::string>{"ns/db-2"}));
  BOOST_CHECK_EQUAL(result->value->stopped_by, "maxRunDuration 1m0s reached");
  BOOST_CHECK(std::any_of(events->begin(), events->end(),
                          [](const event_record& e) { return e.reason == "RunDeadlineReached"; }));
}

BOOST_AUTO_TEST_CASE(a_dry_run_writes_nothing_to_the_cluster) {
  ctx.config.dry_run = true;
  auto result = run_kind(request());
  BOOST_REQUIRE(result->value);
  BOOST_CHECK(api->calls_of("evict").empty());
  BOOST_CHECK(api->calls_of("patch").empty());
  BOOST_CHECK_EQUAL(result->value->skipped, 2);
}

// A context without the kind's informers (its registry entry never started them) fails
// the run saying so, rather than asking a null handle and waiting a minute.
BOOST_AUTO_TEST_CASE(a_context_without_the_kinds_informers_fails_the_run_saying_so) {
  ctx.kind_handles = nullptr;
  auto result = run_kind(request());
  BOOST_REQUIRE(result->value);
  BOOST_REQUIRE(result->value->run_failure);
  BOOST_CHECK(result->value->run_failure->kind == run_failure_kind::internal);
  BOOST_CHECK_EQUAL(result->value->run_failure->reason,
                    "podHyperconvergence's informers are not started: the controller context "
                    "holds none under the kind's name");
  BOOST_CHECK(api->calls_of("evict").empty());
}

BOOST_AUTO_TEST_CASE(an_invalid_spec_fails_with_its_path) {
  auto so = request();
  so.spec.kinds[kind_field] = kind_spec{true, R"({"enabled":true,"coolOffPeriod":"abc"})"};
  auto result = run_kind(so);
  BOOST_REQUIRE(result->value);
  BOOST_REQUIRE(result->value->run_failure);
  BOOST_CHECK_EQUAL(result->value->run_failure->reason.rfind(
                      "invalid spec.podHyperconvergence.coolOffPeriod \"abc\"", 0),
                    0u);
}

BOOST_AUTO_TEST_SUITE_END()
