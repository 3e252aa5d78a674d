// The vmHyperconvergence kind actor end to end with mocks: informer snapshots of a small
// fleet, the real csi-topology driver, a recording API and a recording status writer.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <caf/scoped_actor.hpp>

#include "actor_fixture.hpp"
#include "actors/clock.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_hyperconvergence_actor.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_services.hpp"
#include "k8s/metrics.hpp"
#include "model/placement/cool_off.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"
#include "model/ownership_labels.hpp"
#include "model/timestamp.hpp"

using namespace schedopt;
using namespace schedopt::test;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

using vmim = virtual_machine_instance_migration;

node ready_node(const std::string& name) {
  node n;
  n.metadata.name = name;
  n.metadata.labels["kubevirt.io/schedulable"] = "true";
  n.ready = true;
  return n;
}

struct fleet {
  std::vector<virtual_machine_instance> vmis;
  std::vector<persistent_volume_claim> pvcs;
  std::vector<persistent_volume> pvs;
  std::vector<node> nodes;
};

/// A running VMI on `host` with one PVC "<name>-disk" bound to PV "pv-<name>" whose
/// replicas live on `replicas`.
void add_vm(fleet& f, const std::string& name, const std::string& host,
            std::vector<std::string> replicas, bool migratable = true) {
  virtual_machine_instance vmi;
  vmi.metadata.name = name;
  vmi.metadata.namespace_ = "ns1";
  vmi.metadata.uid = "uid-" + name;
  vmi.phase = "Running";
  vmi.node_name = host;
  vmi.volumes.push_back(vmi_volume{"disk", short_name(name + "-disk"), volume_source::claim});
  if (!migratable)
    vmi.conditions.push_back(condition{"LiveMigratable", "False", "DisksNotLiveMigratable",
                                       "hostpath disk", ""});
  f.vmis.push_back(vmi);
  persistent_volume_claim pvc;
  pvc.metadata.name = name + "-disk";
  pvc.metadata.namespace_ = "ns1";
  pvc.volume_name = "pv-" + name;
  f.pvcs.push_back(pvc);
  persistent_volume pv;
  pv.metadata.name = "pv-" + name;
  pv.csi_driver = "local.csi.io";
  pv.volume_handle = "h-" + name;
  pv.affinity_hostnames = std::move(replicas);
  f.pvs.push_back(pv);
}

/// An API whose admission refuses every VMIM and stores nothing under its name.
api_answer rejecting_creates(const api_call& c) {
  if (c.verb == "create")
    return to_caf_error(ec::invalid_request, "admission webhook denied the request: no");
  if (c.verb == "get")
    return to_caf_error(ec::not_found, "not found");
  return k8s::api_response{200, "{}"};
}

struct kind_fixture : actor_fixture {
  kind_fixture() {
    fleet f;
    f.nodes = {ready_node("n1"), ready_node("n2"), ready_node("n3")};
    add_vm(f, "vm-a", "n3", {"n1", "n2"});        // non-hyperconverged: migrate
    add_vm(f, "vm-b", "n1", {"n1"});              // hyperconverged: left alone
    add_vm(f, "vm-c", "n3", {"n2"}, false);       // not live-migratable: skipped
    vmi_log->objects = f.vmis;
    pvc_log->objects = f.pvcs;
    pv_log->objects = f.pvs;
    node_log->objects = f.nodes;
    // The API stores created VMIMs as sent (schedopt names them itself).
    api->respond = [](const api_call& c) -> api_answer {
      if (c.verb == "create")
        return k8s::api_response{201, c.body};
      return k8s::api_response{200, "{}"};
    };
    ctx.api = track(spawn_mock_api(sys, api));
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

  /// The informer reports `vmi`'s VMIM of request-uid-1 as Succeeded, landed on
  /// `landed_on` (its migrationState.targetNode; "" says nothing of it).
  void vmim_succeeded(const std::string& vmi, const std::string& landed_on = "") {
    vmim done;
    done.metadata.name = vmi + "-schedopt-requid1";
    done.metadata.namespace_ = "ns1";
    done.metadata.labels[labels::request_uid] = "req-uid-1";
    done.vmi_name = vmi;
    done.phase = "Succeeded";
    if (!landed_on.empty()) {
      done.migration = migration_state{};
      done.migration->target_node = landed_on;
      done.migration->completed = true;
    }
    vmim_log->push_updated(done, done);
    sched.run();
  }

  /// Spawns the kind actor (linked to a parent that lives as long as the test), sends it
  /// the run and runs every job; the slot holds the result once the run replied.
  std::shared_ptr<reply_slot<kind_result>> run_kind(scheduling_optimization so, bool resume) {
    auto aut = track(spawn_vm_hyperconvergence(parent.ptr(), ctx));
    auto spec = so.spec.kinds.at(vm_hyperconvergence_kind);
    auto result = ask<kind_result>(sys, aut, kind_run{std::move(so), spec, resume});
    sched.run();
    return result;
  }

  scheduling_optimization request() const {
    scheduling_optimization so;
    so.metadata.name = "so1";
    so.metadata.uid = "req-uid-1";
    so.metadata.generation = 1;
    so.spec.kinds[vm_hyperconvergence_kind] =
      to_kind_spec(vm_hyperconvergence_spec{true, std::nullopt, 2});
    return so;
  }

  std::shared_ptr<api_log> api = std::make_shared<api_log>();
  std::shared_ptr<informer_log<virtual_machine_instance>> vmi_log =
    std::make_shared<informer_log<virtual_machine_instance>>();
  std::shared_ptr<informer_log<vmim>> vmim_log = std::make_shared<informer_log<vmim>>();
  std::shared_ptr<informer_log<persistent_volume_claim>> pvc_log =
    std::make_shared<informer_log<persistent_volume_claim>>();
  std::shared_ptr<informer_log<persistent_volume>> pv_log =
    std::make_shared<informer_log<persistent_volume>>();
  std::shared_ptr<informer_log<node>> node_log = std::make_shared<informer_log<node>>();
  std::shared_ptr<writer_log> writer = std::make_shared<writer_log>();
  std::shared_ptr<std::vector<event_record>> events = std::make_shared<std::vector<event_record>>();
  controller_context ctx;
  caf::scoped_actor parent{sys};
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(vm_hyperconvergence, kind_fixture)

BOOST_AUTO_TEST_CASE(migrates_the_non_hyperconverged_vm_and_records_skips) {
  auto result = run_kind(request(), false);

  // Skips went to the status writer before anything was created.
  BOOST_REQUIRE_EQUAL(writer->reserved.size(), 1u);
  BOOST_CHECK_EQUAL(writer->reserved.front().second, 1); // one eligible VM
  BOOST_REQUIRE_GE(writer->results.size(), 1u);
  auto& skip = writer->results.front();
  BOOST_CHECK_EQUAL(skip.request, "req-uid-1"); // the writer tracks requests by uid
  BOOST_CHECK_EQUAL(skip.detail.name, "vm-c");
  BOOST_CHECK_EQUAL(skip.detail.status, detail_status::skipped);
  BOOST_CHECK_EQUAL(skip.detail.reason.rfind("NotLiveMigratable", 0), 0u);
  BOOST_REQUIRE_EQUAL(writer->stages.size(), 1u);
  BOOST_CHECK_EQUAL(writer->stages.front().stage, request_stage::migrating);

  // Exactly one VMIM, for vm-a, pinned to a replica node, labelled with the request uid.
  auto creates = api->calls_of("create");
  BOOST_REQUIRE_EQUAL(creates.size(), 1u);
  BOOST_CHECK(creates.front().res == k8s::resources::vmims);
  BOOST_CHECK_EQUAL(creates.front().namespace_, "ns1");
  auto body = json::parse(creates.front().body);
  BOOST_CHECK_EQUAL(body.at("metadata").at("name").get<std::string>(), "vm-a-schedopt-requid1");
  BOOST_CHECK_EQUAL(body.at("metadata").at("labels").at("schedopt.libopenstorage.org/request-uid")
                      .get<std::string>(), "req-uid-1");
  BOOST_CHECK_EQUAL(body.at("spec").at("vmiName").get<std::string>(), "vm-a");
  BOOST_CHECK_EQUAL(body.at("spec").at("addedNodeSelector").at("kubernetes.io/hostname")
                      .get<std::string>(), "n1"); // tie between n1 and n2: smallest name
  // The cool-off record was written before the VMIM (VMI without owner).
  BOOST_REQUIRE(!api->calls.empty());
  auto cool_off = api->calls_of("patch");
  BOOST_REQUIRE_EQUAL(cool_off.size(), 1u);
  BOOST_CHECK(cool_off.front().res == k8s::resources::vmis);
  BOOST_CHECK_EQUAL(cool_off.front().name, "vm-a");

  BOOST_CHECK(!result->arrived()); // the migration is still running
  BOOST_REQUIRE_EQUAL(vmim_log->subscribers.size(), 1u);
  BOOST_CHECK_EQUAL(vmim_log->subscribers.front().object->second, "vm-a-schedopt-requid1");

  vmim_succeeded("vm-a");

  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->successful, 1);
  BOOST_CHECK_EQUAL(result->value->skipped, 1);
  BOOST_CHECK_EQUAL(result->value->failed, 0);
  BOOST_CHECK(!result->value->run_failure);
  BOOST_CHECK(result->value->outstanding.empty());
  BOOST_REQUIRE_EQUAL(writer->results.size(), 2u);
  BOOST_CHECK_EQUAL(writer->results.back().detail.name, "vm-a");
  BOOST_CHECK_EQUAL(writer->results.back().detail.status, detail_status::successful);
}

// docs/design.md §3.9 "Request deleted mid-run": a stop after the evaluation ended creates nothing
// more but waits for the migration already running.
BOOST_AUTO_TEST_CASE(a_stop_after_the_evaluation_waits_for_the_running_migration) {
  auto aut = track(spawn_vm_hyperconvergence(parent.ptr(), ctx));
  auto so = request();
  auto result = ask<kind_result>(sys, aut,
                                 kind_run{so, so.spec.kinds.at(vm_hyperconvergence_kind), false});
  sched.run();
  BOOST_REQUIRE_EQUAL(api->calls_of("create").size(), 1u); // vm-a's VMIM is in flight
  caf::anon_send(aut, atom::stop_v);
  sched.run();
  BOOST_CHECK(!result->arrived());
  vmim_succeeded("vm-a");
  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->successful, 1);
  BOOST_CHECK_EQUAL(api->calls_of("create").size(), 1u);
}

// The API server stored the VMIM but the answer was lost (a 5xx, or a retry denied by
// admission because the first attempt's VMIM is in flight): the candidate finds its
// VMIM by its fixed name and watches it instead of failing or creating another.
BOOST_AUTO_TEST_CASE(a_create_that_failed_after_storing_is_adopted_by_name) {
  std::string stored;
  api->respond = [&stored](const api_call& c) -> api_answer {
    if (c.verb == "create") {
      stored = c.body;
      return to_caf_error(ec::invalid_request, "admission webhook denied the request: "
                                               "in-flight migration detected");
    }
    if (c.verb == "get" && c.res == k8s::resources::vmims && !stored.empty())
      return k8s::api_response{200, stored};
    return k8s::api_response{200, "{}"};
  };
  auto result = run_kind(request(), false);
  auto gets = api->calls_of("get");
  BOOST_REQUIRE_EQUAL(gets.size(), 1u);
  BOOST_CHECK_EQUAL(gets.front().name, "vm-a-schedopt-requid1");
  BOOST_CHECK_EQUAL(api->calls_of("create").size(), 1u);
  BOOST_REQUIRE_EQUAL(vmim_log->subscribers.size(), 1u); // adopted: watched
  BOOST_CHECK_EQUAL(vmim_log->subscribers.front().object->second, "vm-a-schedopt-requid1");
  BOOST_CHECK(!result->arrived());
}

// Nothing under that name (or another request's VMIM): the create error is the outcome.
BOOST_AUTO_TEST_CASE(a_rejected_create_with_nothing_stored_fails_with_the_api_message) {
  api->respond = [](const api_call& c) { return rejecting_creates(c); };
  auto result = run_kind(request(), false);
  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->failed, 1);
  BOOST_CHECK(vmim_log->subscribers.empty());
  BOOST_REQUIRE_GE(writer->results.size(), 2u);
  BOOST_CHECK_EQUAL(writer->results.back().detail.reason,
                    "MigrationCreateFailed: admission webhook denied the request: no");
  // The cool-off record written for the create (naming the request) is taken back: the
  // VM was never migrated, so it must not wait out a cool-off window.
  auto patches = api->calls_of("patch");
  BOOST_REQUIRE_EQUAL(patches.size(), 2u);
  auto written = json::parse(patches[0].body).at("metadata").at("annotations");
  BOOST_CHECK_EQUAL(written.at(std::string{default_cool_off_annotation} + "-request-uid")
                      .get<std::string>(), "req-uid-1");
  auto restored = json::parse(patches[1].body).at("metadata").at("annotations");
  BOOST_CHECK_EQUAL(patches[1].name, "vm-a");
  BOOST_CHECK(restored.at(default_cool_off_annotation).is_null());
  BOOST_CHECK(restored.at(std::string{default_cool_off_annotation} + "-request-uid").is_null());
}

// A freed slot is refilled in one API round trip: the create goes out right behind the
// cool-off patch, without waiting for its answer. A create rejected before the patch is
// answered restores the record only once the patch landed (else the patch would undo it).
BOOST_AUTO_TEST_CASE(the_create_does_not_wait_for_the_cool_off_answer_and_a_restore_waits_for_it) {
  api->respond = [this](const api_call& c) {
    if (c.verb == "patch" && api->calls_of("patch").size() == 1)
      api->hold = true; // the record's answer (and the create's) stay on the wire
    return rejecting_creates(c);
  };
  auto result = run_kind(request(), false);
  BOOST_REQUIRE_EQUAL(api->calls_of("patch").size(), 1u);
  BOOST_REQUIRE_EQUAL(api->calls_of("create").size(), 1u); // sent, record still unanswered
  BOOST_REQUIRE_EQUAL(api->held.size(), 2u);
  BOOST_CHECK(api->calls[api->calls.size() - 2].verb == "patch"); // the record went first
  BOOST_CHECK(api->calls.back().verb == "create");

  // The create's rejection arrives first; the lookup by name finds nothing.
  api->hold = false;
  auto record_answer = std::move(api->held.front());
  api->held.erase(api->held.begin());
  api->release();
  sched.run();
  BOOST_REQUIRE_EQUAL(api->calls_of("get").size(), 1u);
  BOOST_CHECK_EQUAL(api->calls_of("patch").size(), 1u); // no restore before the record landed
  BOOST_CHECK(!result->arrived());

  api->held.push_back(std::move(record_answer)); // now the record's answer lands
  api->release();
  sched.run();
  auto patches = api->calls_of("patch");
  BOOST_REQUIRE_EQUAL(patches.size(), 2u);
  auto restored = json::parse(patches[1].body).at("metadata").at("annotations");
  BOOST_CHECK(restored.at(default_cool_off_annotation).is_null());
  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->failed, 1);
  BOOST_CHECK_EQUAL(writer->results.back().detail.reason,
                    "MigrationCreateFailed: admission webhook denied the request: no");
}

// `kubectl describe vmi` says why the VM moved: a Normal Migrating event on the VMI at
// create, a Warning MigrationFailed with the reason when the VMIM fails; the VMIM's
// creation-to-outcome time lands in schedopt_migration_duration_seconds{outcome}.
BOOST_AUTO_TEST_CASE(migration_events_on_the_vmi_and_the_duration_histogram) {
  auto created_at = format_rfc3339(std::chrono::system_clock::now() - 45s);
  api->respond = [created_at](const api_call& c) -> api_answer {
    if (c.verb == "create") {
      auto body = json::parse(c.body);
      body["metadata"]["creationTimestamp"] = created_at;
      return k8s::api_response{201, body.dump()};
    }
    return k8s::api_response{200, "{}"};
  };
  auto& m = k8s::default_metrics();
  auto failed_before = m.count("schedopt_migration_duration_seconds", {{"outcome", "failed"}});
  auto result = run_kind(request(), false);
  auto on_vmi = [&](const std::string& reason) {
    std::vector<event_record> out;
    for (auto& e : *events)
      if (e.involved.kind == "VirtualMachineInstance" && e.reason == reason)
        out.push_back(e);
    return out;
  };
  auto migrating = on_vmi("Migrating");
  BOOST_REQUIRE_EQUAL(migrating.size(), 1u);
  BOOST_CHECK_EQUAL(migrating.front().type, "Normal");
  BOOST_CHECK_EQUAL(migrating.front().involved.name, "vm-a");
  BOOST_CHECK_EQUAL(migrating.front().involved.namespace_, "ns1");
  BOOST_CHECK_EQUAL(migrating.front().involved.uid, "uid-vm-a");
  BOOST_CHECK_EQUAL(migrating.front().involved.api_version, "kubevirt.io/v1");
  BOOST_CHECK_EQUAL(migrating.front().message,
                    "live migration vm-a-schedopt-requid1 from n3 to n1 for request so1");
  BOOST_CHECK(on_vmi("MigrationFailed").empty());

  vmim failed;
  failed.metadata.name = "vm-a-schedopt-requid1";
  failed.metadata.namespace_ = "ns1";
  failed.metadata.labels[labels::request_uid] = "req-uid-1";
  failed.metadata.creation_timestamp = created_at;
  failed.vmi_name = "vm-a";
  failed.phase = "Failed";
  vmim_log->push_updated(failed, failed);
  sched.run();

  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->failed, 1);
  auto failures = on_vmi("MigrationFailed");
  BOOST_REQUIRE_EQUAL(failures.size(), 1u);
  BOOST_CHECK_EQUAL(failures.front().type, "Warning");
  BOOST_CHECK_EQUAL(failures.front().involved.name, "vm-a");
  BOOST_TEST(failures.front().message.find("live migration vm-a-schedopt-requid1 for request so1 "
                                           "failed: MigrationRunFailed")
               == 0u, failures.front().message);
  BOOST_CHECK_EQUAL(m.count("schedopt_migration_duration_seconds", {{"outcome", "failed"}}),
                    failed_before + 1);
  auto text = m.render();
  BOOST_CHECK(text.find("# TYPE schedopt_migration_duration_seconds histogram\n")
              != std::string::npos);
  // 45 s: above the 30 s bucket, within the 60 s one.
  BOOST_CHECK(text.find("schedopt_migration_duration_seconds_bucket{outcome=\"failed\",le=\"60\"} "
                        + std::to_string(failed_before + 1) + "\n")
              != std::string::npos);
  BOOST_CHECK(text.find("schedopt_migration_duration_seconds_bucket{outcome=\"failed\",le=\"30\"} "
                        + std::to_string(failed_before + 1) + "\n")
              == std::string::npos);
}

// KubeVirt before 1.6: the VMIM schema prunes spec.addedNodeSelector. The run says so
// once on the request and goes unpinned; a landing off every replica node is still a
// success, said on the VMI and counted.
BOOST_AUTO_TEST_CASE(a_pruned_pin_is_said_once_and_an_off_replica_landing_is_flagged) {
  api->respond = [](const api_call& c) -> api_answer {
    if (c.verb == "create") {
      auto body = json::parse(c.body);
      body["spec"].erase("addedNodeSelector"); // as KubeVirt 1.5's schema stores it
      return k8s::api_response{201, body.dump()};
    }
    return k8s::api_response{200, "{}"};
  };
  auto& m = k8s::default_metrics();
  auto unpinned_before = m.value("schedopt_unpinned_runs_total");
  auto off_before = m.value("schedopt_migrations_off_replica_total");
  auto result = run_kind(request(), false);
  auto events_named = [&](const std::string& reason) {
    std::vector<event_record> out;
    for (auto& e : *events)
      if (e.reason == reason)
        out.push_back(e);
    return out;
  };
  auto unpinned = events_named("TargetPinningUnsupported");
  BOOST_REQUIRE_EQUAL(unpinned.size(), 1u);
  BOOST_CHECK_EQUAL(unpinned.front().type, "Warning");
  BOOST_CHECK_EQUAL(unpinned.front().involved.kind, "SchedulingOptimization");
  BOOST_CHECK_EQUAL(unpinned.front().involved.name, "so1");
  BOOST_CHECK_EQUAL(m.value("schedopt_unpinned_runs_total"), unpinned_before + 1);
  auto migrating = events_named("Migrating");
  BOOST_REQUIRE_EQUAL(migrating.size(), 1u);
  BOOST_CHECK_EQUAL(migrating.front().message,
                    "live migration vm-a-schedopt-requid1 from n3 to a node KubeVirt chooses "
                    "for request so1");

  // KubeVirt's scheduler put the VM on n3's neighbour holding no replica of vm-a.
  vmim_succeeded("vm-a", "n4");

  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->successful, 1); // KubeVirt's success all the same
  auto off = events_named("MigratedOffReplica");
  BOOST_REQUIRE_EQUAL(off.size(), 1u);
  BOOST_CHECK_EQUAL(off.front().type, "Warning");
  BOOST_CHECK_EQUAL(off.front().involved.name, "vm-a");
  BOOST_CHECK_EQUAL(off.front().message,
                    "live migration vm-a-schedopt-requid1 for request so1 moved the VM to n4, "
                    "which holds none of its replicas (n1,n2)");
  BOOST_CHECK_EQUAL(m.value("schedopt_migrations_off_replica_total"), off_before + 1);
}

BOOST_AUTO_TEST_CASE(a_landing_on_a_replica_node_is_not_flagged) {
  auto result = run_kind(request(), false);
  vmim_succeeded("vm-a", "n2"); // not the pinned n1, but a replica holder
  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->successful, 1);
  for (auto& e : *events) {
    BOOST_CHECK_NE(e.reason, "MigratedOffReplica");
    BOOST_CHECK_NE(e.reason, "TargetPinningUnsupported");
  }
}

// -- resume (docs/design.md §4.1): every candidate accounted for exactly once -------------------

namespace {

vmim running_vmim_of(const std::string& vmi, const std::string& request_uid) {
  vmim m;
  m.metadata.name = vmi + "-schedopt-requid1";
  m.metadata.namespace_ = "ns1";
  m.metadata.labels[labels::request_uid] = request_uid;
  m.metadata.labels[labels::managed_by] = "schedopt";
  m.metadata.creation_timestamp = "2026-11-30T10:00:00Z";
  m.vmi_name = vmi;
  m.phase = "Running";
  return m;
}

scheduling_optimization_status recorded(request_stage stage_,
                                        std::vector<kind_detail> details) {
  scheduling_optimization_status s;
  s.stage = stage_;
  s.status = request_status::in_progress;
  kind_status_block vh;
  for (auto& d : details)
    (d.status == detail_status::skipped ? vh.skipped
     : d.status == detail_status::successful ? vh.successful : vh.failed)++;
  vh.details = std::move(details);
  s.kinds[vm_hyperconvergence_kind] = vh;
  return s;
}

} // namespace

BOOST_AUTO_TEST_CASE(an_adopted_vm_uses_one_slot_of_the_per_run_cap) {
  // Cap 2: vm-a's VMIM (ours) is in flight, vm-d is misplaced and not started yet.
  // Counting vm-a twice (adopted and eligible again) would defer vm-d.
  fleet f;
  add_vm(f, "vm-d", "n3", {"n2"});
  vmi_log->objects.push_back(f.vmis[0]);
  pvc_log->objects.push_back(f.pvcs[0]);
  pv_log->objects.push_back(f.pvs[0]);
  vmim_log->objects.push_back(running_vmim_of("vm-a", "req-uid-1"));
  ctx.config.max_non_hyperconverged_per_run = 2;
  auto so = request();
  so.status = recorded(request_stage::migrating, {{"vm-c", "ns1", detail_status::skipped,
                                                   "NotLiveMigratable: x"}});
  auto result = run_kind(so, true);
  auto creates = api->calls_of("create");
  BOOST_REQUIRE_EQUAL(creates.size(), 1u); // vm-d only: vm-a is adopted, never re-created
  BOOST_CHECK_EQUAL(json::parse(creates[0].body).at("spec").at("vmiName").get<std::string>(), "vm-d");
  BOOST_CHECK_EQUAL(vmim_log->subscribers.size(), 2u);
  // vm-c's skip is recorded already: not sent again.
  for (auto& r : writer->results)
    BOOST_CHECK(r.detail.name != "vm-c");
  vmim_succeeded("vm-a");
  vmim_succeeded("vm-d");
  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->successful, 2);
  BOOST_CHECK_EQUAL(result->value->skipped, 1);
  BOOST_CHECK(result->value->outstanding.empty());
}

BOOST_AUTO_TEST_CASE(a_resume_in_migrating_counts_a_vm_that_became_skipped) {
  // vm-a was eligible when the run began (no detail, no VMIM yet) and is not live
  // migratable now: it is skipped, counted and named, not lost.
  vmi_log->objects[0].conditions.push_back(
    condition{"LiveMigratable", "False", "DisksNotLiveMigratable", "hostpath disk", ""});
  auto so = request();
  so.status = recorded(request_stage::migrating, {{"vm-c", "ns1", detail_status::skipped,
                                                   "NotLiveMigratable: x"}});
  auto result = run_kind(so, true);
  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->skipped, 2);
  BOOST_CHECK_EQUAL(result->value->successful + result->value->failed, 0);
  BOOST_REQUIRE_EQUAL(writer->results.size(), 1u);
  BOOST_CHECK_EQUAL(writer->results[0].detail.name, "vm-a");
  BOOST_CHECK_EQUAL(writer->results[0].detail.status, detail_status::skipped);
}

BOOST_AUTO_TEST_CASE(a_resume_in_evaluating_does_not_count_recorded_skips_twice) {
  auto so = request();
  so.status = recorded(request_stage::evaluating, {{"vm-c", "ns1", detail_status::skipped,
                                                    "NotLiveMigratable: x"}});
  auto result = run_kind(so, true);
  for (auto& r : writer->results)
    BOOST_CHECK(r.detail.name != "vm-c");
  vmim_succeeded("vm-a");
  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->skipped, 1);
  BOOST_CHECK_EQUAL(result->value->successful, 1);
}

BOOST_AUTO_TEST_CASE(a_resume_ignores_its_own_cool_off_record_for_a_vm_it_never_migrated) {
  // Interrupted between the cool-off record and the create: no VMIM exists, so the VM
  // is migrated now. The same record written by another request blocks it.
  auto now = format_rfc3339(actor_now(parent.ptr())); // the test clock's "now"
  auto key = std::string{default_cool_off_annotation};
  vmi_log->objects[0].metadata.annotations = {{key, now}, {key + "-request-uid", "req-uid-1"}};
  auto so = request();
  so.status = recorded(request_stage::migrating, {});
  run_kind(so, true);
  BOOST_CHECK_EQUAL(api->calls_of("create").size(), 1u);
  api->calls.clear();
  writer->results.clear();
  vmi_log->objects[0].metadata.annotations[key + "-request-uid"] = "another-request";
  run_kind(so, true);
  BOOST_CHECK(api->calls_of("create").empty());
  bool cooling = false;
  for (auto& r : writer->results)
    cooling = cooling || (r.detail.name == "vm-a" && r.detail.reason.rfind("CoolingOff", 0) == 0);
  BOOST_CHECK(cooling);
}

BOOST_AUTO_TEST_CASE(a_vms_cool_off_record_comes_from_the_vm_informer_without_a_list) {
  // vm-a belongs to VirtualMachine vm-a, whose record (from the VM informer) is recent.
  vmi_log->objects[0].controller_vm = "vm-a";
  auto key = std::string{default_cool_off_annotation};
  virtual_machine vm;
  vm.metadata.namespace_ = "ns1";
  vm.metadata.name = "vm-a";
  vm.metadata.annotations = {{key, format_rfc3339(actor_now(parent.ptr()))},
                             {key + "-request-uid", "an-earlier-request"}};
  auto vm_log = std::make_shared<informer_log<virtual_machine>>();
  vm_log->objects = {vm};
  set_kind_handles(ctx, vm_hyperconvergence_kind,
                   vm_services{track(spawn_mock_informer(sys, vm_log))});
  auto result = run_kind(request(), false);
  BOOST_REQUIRE(result->value);
  BOOST_CHECK(api->calls_of("create").empty());
  auto vm_lists = [&] {
    std::size_t n = 0;
    for (auto& c : api->calls_of("list"))
      n += c.res == k8s::resources::vms;
    return n;
  };
  BOOST_CHECK_EQUAL(vm_lists(), 0u); // no VirtualMachine list on the way
  bool cooling = false;
  for (auto& r : writer->results)
    cooling = cooling || (r.detail.name == "vm-a" && r.detail.reason.rfind("CoolingOff", 0) == 0);
  BOOST_CHECK(cooling);

  // Not synced yet (or no VM API): the run lists VirtualMachines itself.
  vm_log->synced = false;
  api->calls.clear();
  run_kind(request(), false);
  BOOST_CHECK_EQUAL(vm_lists(), 1u);
}

BOOST_AUTO_TEST_CASE(a_labelled_namespace_opts_its_vms_out) {
  std::vector<k8s::list_request> asked;
  api->list_answer = [&asked](const k8s::list_request& r) {
    asked.push_back(r);
    k8s::list_response out;
    if (r.res == k8s::resources::namespaces)
      out.pages.push_back(R"({"kind":"NamespaceList","metadata":{},"items":[{"metadata":{"name":"ns1",)"
                          R"("labels":{"schedopt.libopenstorage.org/exclude":"true"}}}]})");
    return out;
  };
  auto result = run_kind(request(), false);
  BOOST_REQUIRE(result->arrived());
  BOOST_CHECK(api->calls_of("create").empty());
  bool opted_out = false;
  for (auto& r : writer->results)
    opted_out = opted_out || (r.detail.name == "vm-a" &&
                              r.detail.reason.rfind("OptedOut: namespace ns1 labelled", 0) == 0);
  BOOST_CHECK(opted_out);
  std::vector<std::string> selectors;
  for (auto& r : asked)
    if (r.res == k8s::resources::namespaces)
      selectors.push_back(r.label_selector);
  BOOST_REQUIRE_EQUAL(selectors.size(), 1u); // one list per run
  BOOST_CHECK_EQUAL(selectors.front(), "schedopt.libopenstorage.org/exclude=true");
}

BOOST_AUTO_TEST_CASE(the_cool_off_patch_answer_is_fed_to_the_holders_informer) {
  // The API answers the record's patch with the VMI as stored, as a real server does.
  api->respond = [](const api_call& c) -> api_answer {
    if (c.verb == "create")
      return k8s::api_response{201, c.body};
    if (c.verb == "patch" && c.res == k8s::resources::vmis)
      return k8s::api_response{200, R"({"metadata":{"namespace":"ns1","name":"vm-a",)"
                                    R"("resourceVersion":"77"},"status":{"phase":"Running"}})"};
    return k8s::api_response{200, "{}"};
  };
  run_kind(request(), false);
  BOOST_REQUIRE_EQUAL(vmi_log->observed.size(), 1u);
  BOOST_CHECK_EQUAL(vmi_log->observed.front().metadata.name, "vm-a");
  BOOST_CHECK_EQUAL(vmi_log->observed.front().metadata.resource_version, "77");
}

BOOST_AUTO_TEST_CASE(driver_less_fleet_creates_nothing) {
  pv_log->objects.clear(); // no PV the driver owns: nothing to do
  auto result = run_kind(request(), false);
  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->successful, 0);
  BOOST_CHECK(api->calls_of("create").empty());
}

BOOST_AUTO_TEST_SUITE_END()
