// The vmHyperconvergence kind actor end to end with mocks: informer snapshots of a small
// fleet, the real csi-topology driver, a recording API and a recording status writer.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <caf/scoped_actor.hpp>

#include "actor_fixture.hpp"
#include "actors/vm_hyperconvergence_actor.hpp"

using namespace schedopt;
using namespace schedopt::test;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

using vmim = virtual_machine_instance_migration;

struct writer_log {
  std::vector<vm_result> results;
  std::vector<stage_change> stages;
  std::vector<std::pair<std::string, int64_t>> reserved;
};

status_writer_actor spawn_mock_status_writer(caf::actor_system& sys, std::shared_ptr<writer_log> log) {
  return sys.spawn([log](status_writer_actor::pointer) -> status_writer_actor::behavior_type {
    return {
      [=](atom::open, const scheduling_optimization& so) { return so.status; },
      [=](const stage_change& c) {
        log->stages.push_back(c);
        return true;
      },
      [=](atom::reserve, const std::string& name, int64_t n) { log->reserved.emplace_back(name, n); },
      [=](const vm_result& r) { log->results.push_back(r); },
      [=](const run_outcome&) { return true; },
      [=](atom::close, const std::string&) {},
      [=](atom::tick) {},
    };
  });
}

event_recorder_actor spawn_mock_events(caf::actor_system& sys, std::shared_ptr<std::vector<event_record>> log) {
  return sys.spawn([log](event_recorder_actor::pointer) -> event_recorder_actor::behavior_type {
    return {
      [=](const event_record& e) { log->push_back(e); },
      [=](atom::flush) { return true; },
      [=](atom::tick) {},
    };
  });
}

node ready_node(const std::string& name) {
  node n;
  n.metadata.name = name;
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
  vmi.volumes.push_back(vmi_volume{"disk", name + "-disk", ""});
  if (!migratable)
    vmi.conditions.push_back(condition{"LiveMigratable", "False", "DisksNotLiveMigratable",
                                       "hostpath disk", ""});
  f.vmis.push_back(vmi);
  persistent_volume_claim pvc;
  pvc.metadata.name = name + "-disk";
  pvc.metadata.namespace_ = "ns1";
  pvc.volume_name = "pv-" + name;
  pvc.phase = "Bound";
  f.pvcs.push_back(pvc);
  persistent_volume pv;
  pv.metadata.name = "pv-" + name;
  pv.csi_driver = "local.csi.io";
  pv.volume_handle = "h-" + name;
  pv.claim_namespace = "ns1";
  pv.claim_name = name + "-disk";
  pv.affinity_hostnames = std::move(replicas);
  f.pvs.push_back(pv);
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
    ctx.events = track(spawn_mock_events(sys, events));
    auto entry = find_storage_driver("csi-topology");
    BOOST_REQUIRE(entry);
    ctx.driver = *entry;
    auto driver = entry->spawn(sys, ctx.config);
    BOOST_REQUIRE(driver);
    ctx.driver_actor = track(*driver);
  }

  scheduling_optimization request() const {
    scheduling_optimization so;
    so.metadata.name = "so1";
    so.metadata.uid = "req-uid-1";
    so.metadata.generation = 1;
    so.spec.vm_hyperconvergence = vm_hyperconvergence_spec{true, std::nullopt, 2};
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
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(vm_hyperconvergence, kind_fixture)

BOOST_AUTO_TEST_CASE(migrates_the_non_hyperconverged_vm_and_records_skips) {
  caf::scoped_actor parent{sys};
  auto aut = track(spawn_vm_hyperconvergence(parent.ptr(), ctx));
  auto result = ask<kind_result>(sys, aut, kind_run{request(), false});
  sched.run();

  // Skips went to the status writer before anything was created.
  BOOST_REQUIRE_EQUAL(writer->reserved.size(), 1u);
  BOOST_CHECK_EQUAL(writer->reserved.front().second, 1); // one eligible VM
  BOOST_REQUIRE_GE(writer->results.size(), 1u);
  auto& skip = writer->results.front();
  BOOST_CHECK_EQUAL(skip.request, "so1");
  BOOST_CHECK_EQUAL(skip.detail.name, "vm-c");
  BOOST_CHECK_EQUAL(skip.detail.status, vm_status::skipped);
  BOOST_CHECK_EQUAL(skip.detail.reason.rfind("NotLiveMigratable", 0), 0u);
  BOOST_REQUIRE_EQUAL(writer->stages.size(), 1u);
  BOOST_CHECK_EQUAL(writer->stages.front().stage, stage::migrating);

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

  vmim done;
  done.metadata.name = "vm-a-schedopt-requid1";
  done.metadata.namespace_ = "ns1";
  done.vmi_name = "vm-a";
  done.phase = "Succeeded";
  vmim_log->push_updated(done, done);
  sched.run();

  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->successful, 1);
  BOOST_CHECK_EQUAL(result->value->skipped, 1);
  BOOST_CHECK_EQUAL(result->value->failed, 0);
  BOOST_CHECK(result->value->run_failure.empty());
  BOOST_CHECK(result->value->outstanding.empty());
  BOOST_REQUIRE_EQUAL(writer->results.size(), 2u);
  BOOST_CHECK_EQUAL(writer->results.back().detail.name, "vm-a");
  BOOST_CHECK_EQUAL(writer->results.back().detail.status, vm_status::successful);
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
  caf::scoped_actor parent{sys};
  auto aut = track(spawn_vm_hyperconvergence(parent.ptr(), ctx));
  auto result = ask<kind_result>(sys, aut, kind_run{request(), false});
  sched.run();
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
  api->respond = [](const api_call& c) -> api_answer {
    if (c.verb == "create")
      return to_caf_error(ec::invalid_request, "admission webhook denied the request: no");
    if (c.verb == "get")
      return to_caf_error(ec::not_found, "not found");
    return k8s::api_response{200, "{}"};
  };
  caf::scoped_actor parent{sys};
  auto aut = track(spawn_vm_hyperconvergence(parent.ptr(), ctx));
  auto result = ask<kind_result>(sys, aut, kind_run{request(), false});
  sched.run();
  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->failed, 1);
  BOOST_CHECK(vmim_log->subscribers.empty());
  BOOST_REQUIRE_GE(writer->results.size(), 2u);
  BOOST_CHECK_EQUAL(writer->results.back().detail.reason,
                    "MigrationCreateFailed: admission webhook denied the request: no");
}

BOOST_AUTO_TEST_CASE(driver_less_fleet_creates_nothing) {
  pv_log->objects.clear(); // no PV the driver owns: nothing to do
  caf::scoped_actor parent{sys};
  auto aut = track(spawn_vm_hyperconvergence(parent.ptr(), ctx));
  auto result = ask<kind_result>(sys, aut, kind_run{request(), false});
  sched.run();
  BOOST_REQUIRE(result->value);
  BOOST_CHECK_EQUAL(result->value->successful, 0);
  BOOST_CHECK(api->calls_of("create").empty());
}

BOOST_AUTO_TEST_SUITE_END()
