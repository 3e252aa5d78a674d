// Golden fixtures shaped like real API server responses decode field by field;
// everything the model does not keep is ignored.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "model/fixture_file.hpp"
#include "model/decode.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"

using namespace schedopt;
using schedopt::test::fixture;

BOOST_AUTO_TEST_SUITE(decode_golden)

BOOST_AUTO_TEST_CASE(running_vmi_with_unknown_fields) {
  auto vmi = decode_vmi(fixture("vmi-running.json"));
  BOOST_REQUIRE_MESSAGE(vmi.has_value(), (vmi ? std::string() : vmi.err().message));
  const auto& m = vmi->metadata;
  BOOST_TEST(m.name == "rhel9-web-01");
  BOOST_TEST(m.namespace_ == "web");
  BOOST_TEST(m.uid == "7c3e9a55-1f0e-4d38-8f1b-1b2b3c4d5e6f");
  BOOST_TEST(m.resource_version == "4418391");
  // A VMI keeps lean metadata (objects.hpp): labels, finalizers and timestamps are skipped.
  BOOST_TEST(m.annotations.at("kubevirt.io/vm-generation") == "2");
  // Of its owner references, the controlling VirtualMachine's name.
  BOOST_TEST(vmi->controller_vm == "rhel9-web-01");

  BOOST_REQUIRE(vmi->volumes.size() == 3u);
  BOOST_TEST(vmi->volumes[0].name == "rootdisk");
  // A DataVolume's PVC has its name.
  BOOST_TEST(vmi->volumes[0].claim_name == "rhel9-web-01-root");
  BOOST_TEST((vmi->volumes[0].source == volume_source::data_volume));
  BOOST_TEST(vmi->volumes[1].claim_name == "rhel9-web-01-data");
  BOOST_TEST((vmi->volumes[1].source == volume_source::claim));
  BOOST_TEST(vmi->volumes[2].name == "cloudinitdisk");
  BOOST_TEST(vmi->volumes[2].claim_name == "");
  BOOST_TEST((vmi->volumes[2].source == volume_source::other));

  BOOST_TEST(vmi->phase == "Running");
  BOOST_TEST(vmi->node_name == "worker-3");
  BOOST_REQUIRE(vmi->conditions.size() == 3u);
  BOOST_TEST(vmi->conditions[1].type == "LiveMigratable");
  BOOST_TEST(vmi->conditions[1].status == "True");
  BOOST_TEST(vmi->conditions[1].last_transition_time == ""); // null in the document
  BOOST_TEST(vmi->conditions[0].last_transition_time == "2026-11-30T09:14:21Z");

  BOOST_REQUIRE(vmi->migration.has_value());
  BOOST_TEST(vmi->migration->migration_uid == "a1b2c3d4-0000-4000-8000-00000000abcd");
  BOOST_TEST(vmi->migration->source_node == "worker-1");
  BOOST_TEST(vmi->migration->target_node == "worker-3");
  BOOST_TEST(vmi->migration->start_timestamp == "2026-11-30T09:39:50Z");
  BOOST_TEST(vmi->migration->end_timestamp == "2026-11-30T09:40:12Z");
  BOOST_TEST(vmi->migration->completed);
  BOOST_TEST(!vmi->migration->failed);
  BOOST_TEST(!vmi->migration->abort_requested);
  BOOST_TEST(vmi->migration->failure_reason == "");
}

BOOST_AUTO_TEST_CASE(vmims_in_every_phase) {
  auto list = decode_list<virtual_machine_instance_migration>(fixture("vmim-list-phases.json"));
  BOOST_REQUIRE_MESSAGE(list.has_value(), (list ? std::string() : list.err().message));
  BOOST_TEST(list->resource_version == "5123");
  BOOST_TEST(list->continue_token == "");
  const char* phases[] = {"Pending", "Scheduling", "Scheduled", "PreparingTarget",
                          "TargetReady", "Running", "Succeeded", "Failed"};
  const std::size_t transitions[] = {1, 2, 3, 4, 5, 6, 7, 7};
  BOOST_REQUIRE(list->items.size() == 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    const auto& m = list->items[i];
    BOOST_TEST_INFO("item " << i);
    BOOST_TEST(m.phase == phases[i]);
    BOOST_TEST(m.vmi_name == "vm-" + std::to_string(i));
    BOOST_TEST(m.metadata.generate_name == "vm-" + std::to_string(i) + "-schedopt-");
    BOOST_TEST(m.metadata.namespace_ == "vms");
    BOOST_TEST(m.metadata.labels.at("schedopt.libopenstorage.org/request-uid")
               == "5f0c1c8e-3d7a-4b8e-9a51-7c2d0e4f1a90");
    BOOST_TEST(m.metadata.annotations.at("schedopt.libopenstorage.org/source-node") == "worker-1");
    BOOST_TEST(m.added_node_selector.at("kubernetes.io/hostname") == "worker-2");
    BOOST_REQUIRE(m.phase_transition_timestamps.size() == transitions[i]);
    BOOST_TEST(m.phase_transition_timestamps.front().phase == "Pending");
    BOOST_TEST(m.phase_transition_timestamps.front().timestamp == "2026-11-30T10:00:00Z");
    BOOST_TEST(m.phase_transition_timestamps.back().phase == phases[i]);
    BOOST_TEST(m.migration.has_value() == (i >= 3));
    BOOST_TEST(is_final_phase(m.phase) == (i >= 6));
  }
  BOOST_TEST(list->items[6].migration->completed);
  BOOST_TEST(!list->items[6].migration->failed);
  BOOST_TEST(list->items[6].conditions.size() == 1u);
  BOOST_TEST(list->items[5].migration->start_timestamp == "2026-11-30T10:00:08Z");
  BOOST_TEST(list->items[4].migration->start_timestamp == "");
}

BOOST_AUTO_TEST_CASE(failed_vmim_carries_failure_reason) {
  auto m = decode_vmim(fixture("vmim-failed.json"));
  BOOST_REQUIRE_MESSAGE(m.has_value(), (m ? std::string() : m.err().message));
  BOOST_TEST(m->metadata.name == "vm-7-schedopt-hhhhh");
  BOOST_TEST(m->metadata.generate_name == "vm-7-schedopt-");
  BOOST_TEST(m->metadata.generation == 1);
  BOOST_TEST(m->metadata.creation_timestamp == "2026-11-30T10:00:00Z");
  BOOST_TEST(!m->metadata.deletion_timestamp.has_value());
  BOOST_TEST(m->metadata.labels.size() == 3u);
  BOOST_TEST(m->metadata.labels.at("kubevirt.io/vmi-name") == "vm-7");
  BOOST_TEST(m->metadata.annotations.at("schedopt.libopenstorage.org/source-node") == "worker-1");
  BOOST_REQUIRE(m->metadata.finalizers.size() == 1u);
  BOOST_TEST(m->metadata.finalizers[0] == "kubevirt.io/migrationJobFinalize");
  BOOST_TEST(m->phase == "Failed");
  BOOST_REQUIRE(m->migration.has_value());
  BOOST_TEST(m->migration->failed);
  BOOST_TEST(m->migration->completed);
  BOOST_TEST(m->migration->end_timestamp == "2026-11-30T10:00:31Z");
  BOOST_TEST(m->migration->failure_reason.find("Live migration failed error encountered") == 0u);
  BOOST_TEST(m->migration->failure_reason.find("'migrate'") != std::string::npos);
  BOOST_REQUIRE(m->conditions.size() == 1u);
  BOOST_TEST(m->conditions[0].reason == "MigrationFailed");
  BOOST_TEST(m->conditions[0].message == "migration failed on source");
}

BOOST_AUTO_TEST_CASE(portworx_csi_pv) {
  auto pv = decode_pv(fixture("pv-portworx.json"));
  BOOST_REQUIRE_MESSAGE(pv.has_value(), (pv ? std::string() : pv.err().message));
  BOOST_TEST(pv->metadata.name == "pvc-3f1d2c4b-8e7a-4f60-9b2d-1c0e5a6b7d8e");
  BOOST_TEST(pv->metadata.namespace_ == "");
  BOOST_TEST(pv->csi_driver == "pxd.portworx.com");
  BOOST_TEST(pv->volume_handle == "1054768203394213455");
  BOOST_TEST(affinity_hostnames_of(*pv).empty());
}

BOOST_AUTO_TEST_CASE(local_pv_hostname_affinity) {
  auto pv = decode_pv(fixture("pv-local.json"));
  BOOST_REQUIRE_MESSAGE(pv.has_value(), (pv ? std::string() : pv.err().message));
  BOOST_TEST(pv->csi_driver == "replicated.local.csi.example.com");
  BOOST_TEST(pv->volume_handle == "vol-7a8b");
  // Only `kubernetes.io/hostname In` terms count; duplicates across terms collapse.
  std::vector<std::string> want{"worker-2", "worker-4", "worker-5"};
  BOOST_TEST(affinity_hostnames_of(*pv) == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bound_pvc) {
  auto pvc = decode_pvc(fixture("pvc.json"));
  BOOST_REQUIRE_MESSAGE(pvc.has_value(), (pvc ? std::string() : pvc.err().message));
  BOOST_TEST(pvc->metadata.name == "rhel9-web-01-data");
  BOOST_TEST(pvc->metadata.namespace_ == "web");
  BOOST_TEST(pvc->volume_name == "pvc-3f1d2c4b-8e7a-4f60-9b2d-1c0e5a6b7d8e");
}

BOOST_AUTO_TEST_CASE(ready_node) {
  auto n = decode_node(fixture("node-ready.json"));
  BOOST_REQUIRE_MESSAGE(n.has_value(), (n ? std::string() : n.err().message));
  BOOST_TEST(n->metadata.name == "worker-2");
  BOOST_TEST(n->ready);
  BOOST_TEST(!n->unschedulable);
  BOOST_REQUIRE(n->addresses.size() == 2u);
  BOOST_TEST(n->addresses[0].type == "InternalIP");
  BOOST_TEST(n->addresses[0].address == "10.0.0.12");
  BOOST_TEST(n->addresses[1].type == "Hostname");
  BOOST_TEST(n->addresses[1].address == "worker-2");
  BOOST_TEST(n->metadata.labels.at("kubernetes.io/hostname") == "worker-2");
}

BOOST_AUTO_TEST_CASE(cordoned_unknown_node) {
  auto n = decode_node(fixture("node-cordoned-notready.json"));
  BOOST_REQUIRE_MESSAGE(n.has_value(), (n ? std::string() : n.err().message));
  BOOST_TEST(n->metadata.name == "worker-5");
  BOOST_TEST(!n->ready); // Ready=Unknown is not ready
  BOOST_TEST(n->unschedulable);
  BOOST_TEST(n->addresses.at(1).address == "worker-5.example.com");
}

BOOST_AUTO_TEST_CASE(leader_lease) {
  auto l = decode_lease(fixture("lease.json"));
  BOOST_REQUIRE_MESSAGE(l.has_value(), (l ? std::string() : l.err().message));
  BOOST_TEST(l->metadata.name == "schedopt-leader");
  BOOST_TEST(l->metadata.namespace_ == "schedopt");
  BOOST_TEST(l->metadata.resource_version == "4419001");
  BOOST_TEST(l->holder_identity == "schedopt-7d9f8c6b5-xk2lp_2b1c0d9e");
  BOOST_TEST(l->lease_duration_seconds == 15);
  BOOST_TEST(l->acquire_time == "2026-11-30T08:00:00.000000Z");
  BOOST_TEST(l->renew_time == "2026-11-30T12:20:02.481516Z");
  BOOST_TEST(l->lease_transitions == 3);
}

BOOST_AUTO_TEST_CASE(warning_event) {
  auto e = decode_event(fixture("event.json"));
  BOOST_REQUIRE_MESSAGE(e.has_value(), (e ? std::string() : e.err().message));
  BOOST_TEST(e->metadata.name == "pool-failover-1.187c9a2b3d4e5f60");
  BOOST_TEST(e->involved_object.kind == "SchedulingOptimization");
  BOOST_TEST(e->involved_object.name == "pool-failover-1");
  BOOST_TEST(e->involved_object.namespace_ == "");
  BOOST_TEST(e->involved_object.uid == "5f0c1c8e-3d7a-4b8e-9a51-7c2d0e4f1a90");
  BOOST_TEST(e->involved_object.api_version == "stork.libopenstorage.org/v1alpha1");
  BOOST_TEST(e->type == "Warning");
  BOOST_TEST(e->reason == "MigrationFailed");
  BOOST_TEST(e->count == 4);
  BOOST_TEST(e->first_timestamp == "2026-11-30T12:01:00Z");
  BOOST_TEST(e->last_timestamp == "2026-11-30T12:02:30Z");
  BOOST_TEST(e->source_component == "schedopt");
  BOOST_TEST(e->reporting_component == "schedopt");
}

BOOST_AUTO_TEST_CASE(status_conflict_and_already_exists) {
  auto conflict = decode_status(fixture("status-409-conflict.json"));
  BOOST_REQUIRE(conflict);
  BOOST_TEST(conflict->status == "Failure");
  BOOST_TEST(conflict->reason == "Conflict");
  BOOST_TEST(conflict->code == 409);
  BOOST_TEST(conflict->details_name == "pool-failover-1");
  BOOST_TEST(conflict->details_group == "stork.libopenstorage.org");
  BOOST_TEST(conflict->details_kind == "schedulingoptimizations");
  BOOST_TEST(conflict->message.find("the object has been modified") != std::string::npos);
  auto exists = decode_status(fixture("status-409-already-exists.json"));
  BOOST_REQUIRE(exists);
  BOOST_TEST(exists->reason == "AlreadyExists");
  BOOST_TEST(exists->message == "leases.coordination.k8s.io \"schedopt-leader\" already exists");
  auto throttled = decode_status(fixture("status-429.json"));
  BOOST_REQUIRE(throttled);
  BOOST_TEST(throttled->code == 429);
  BOOST_TEST(throttled->retry_after_seconds == 2);
}

BOOST_AUTO_TEST_CASE(watch_error_410_expired) {
  auto ev = decode_watch_event<virtual_machine_instance>(fixture("status-410-expired.json"));
  BOOST_REQUIRE_MESSAGE(ev.has_value(), (ev ? std::string() : ev.err().message));
  BOOST_TEST(ev->type == "ERROR");
  BOOST_TEST(ev->status.code == 410);
  BOOST_TEST(ev->status.reason == "Expired");
  BOOST_TEST(ev->status.message == "too old resource version: 4400000 (4418391)");
}

BOOST_AUTO_TEST_CASE(watch_added_and_bookmark) {
  auto added = decode_watch_event<node>(
    R"({"type":"ADDED","object":{"kind":"Node","metadata":{"name":"w1","resourceVersion":"77"},"status":{"conditions":[{"type":"Ready","status":"True"}]}}})");
  BOOST_REQUIRE(added);
  BOOST_TEST(added->object.metadata.name == "w1");
  BOOST_TEST(added->object.ready);
  BOOST_TEST(added->resource_version == "77");
  auto bookmark = decode_watch_event<node>(
    R"({"type":"BOOKMARK","object":{"kind":"Node","apiVersion":"v1","metadata":{"resourceVersion":"4419999","annotations":{"k8s.io/initial-events-end":"true"}}}})");
  BOOST_REQUIRE_MESSAGE(bookmark.has_value(), (bookmark ? std::string() : bookmark.err().message));
  BOOST_TEST(bookmark->type == "BOOKMARK");
  BOOST_TEST(bookmark->resource_version == "4419999");
  auto unknown = decode_watch_event<node>(R"({"type":"WHAT","object":{}})");
  BOOST_REQUIRE(!unknown);
  BOOST_TEST(unknown.err().code == ec::invalid_value);
}

BOOST_AUTO_TEST_CASE(scheduling_optimization_with_spec_and_status) {
  auto so = decode_scheduling_optimization(fixture("schedulingoptimization.json"));
  BOOST_REQUIRE_MESSAGE(so.has_value(), (so ? std::string() : so.err().message));
  BOOST_TEST(so->metadata.name == "pool-failover-1");
  BOOST_TEST(so->metadata.namespace_ == "");
  BOOST_TEST(so->metadata.generation == 2);
  BOOST_TEST(so->metadata.creation_timestamp == "2026-11-30T12:00:00Z");
  BOOST_REQUIRE(so->spec.kinds.count(vm_hyperconvergence_kind));
  auto spec = decode_vm_hyperconvergence_spec(so->spec.kinds.at(vm_hyperconvergence_kind));
  BOOST_REQUIRE(spec);
  BOOST_TEST(spec->enabled);
  BOOST_TEST(spec->cool_off_period.value() == "30m");
  BOOST_TEST(spec->max_parallel_migrations.value() == 10);
  const auto& st = so->status;
  BOOST_TEST(st.stage == request_stage::final_);
  BOOST_TEST(st.status == request_status::partial_success);
  BOOST_TEST(st.reason == "2 candidates outstanding: 1 failed, 1 skipped");
  BOOST_TEST(st.start_timestamp == "2026-11-30T12:00:01Z");
  BOOST_TEST(st.finish_timestamp == "2026-11-30T12:03:10Z");
  BOOST_TEST(st.last_update_timestamp == "2026-11-30T12:03:10Z");
  BOOST_TEST(st.observed_generation == 2);
  BOOST_REQUIRE(st.kinds.count(vm_hyperconvergence_kind));
  const auto& block = st.kinds.at(vm_hyperconvergence_kind);
  BOOST_TEST(block.successful == 3);
  BOOST_TEST(block.skipped == 1);
  BOOST_TEST(block.failed == 1);
  BOOST_REQUIRE(block.details.size() == 5u);
  const auto& failed = block.details[2];
  BOOST_TEST(failed.name == "vm-3");
  BOOST_TEST(failed.namespace_ == "vms");
  BOOST_TEST(failed.status == detail_status::failed);
  BOOST_TEST(failed.reason == "MigrationRunFailed: vmim=vms/vm-3-schedopt-x2k9d: unable to attach volume \"\xC3\xBC\"");
  BOOST_TEST(block.details[0].reason == "");
  BOOST_TEST(block.details[4].namespace_ == "other");
}

BOOST_AUTO_TEST_CASE(new_request_without_status) {
  auto so = decode_scheduling_optimization(
    R"({"apiVersion":"stork.libopenstorage.org/v1alpha1","kind":"SchedulingOptimization","metadata":{"name":"r1"},"spec":{"vmHyperconvergence":{"enabled":true}}})");
  BOOST_REQUIRE(so);
  auto spec = decode_vm_hyperconvergence_spec(so->spec.kinds.at(vm_hyperconvergence_kind));
  BOOST_REQUIRE(spec);
  BOOST_TEST(spec->enabled);
  BOOST_TEST(!spec->cool_off_period.has_value());
  BOOST_TEST(!spec->max_parallel_migrations.has_value());
  BOOST_TEST(so->status.stage == request_stage::none);
  BOOST_TEST(!so->status.kinds.count(vm_hyperconvergence_kind));
  auto empty_spec = decode_scheduling_optimization(R"({"metadata":{"name":"r2"},"spec":{}})");
  BOOST_REQUIRE(empty_spec);
  BOOST_TEST(!empty_spec->spec.kinds.count(vm_hyperconvergence_kind));
}

// The request model names no kind: every spec field is a kind's fragment and every object
// in the status a kind's block, whatever the kind (docs/design.md "How to add a kind").
BOOST_AUTO_TEST_CASE(request_with_two_kinds_keeps_each_fragment_and_block) {
  auto so = decode_scheduling_optimization(R"({"metadata":{"name":"r3"},
    "spec":{"vmHyperconvergence":{"enabled":true,"coolOffPeriod":"90s"},
            "podHyperconvergence":{"enabled":false,"maxParallelEvictions":3},"other":null},
    "status":{"stage":"Migrating","status":"InProgress","observedGeneration":1,
      "vmHyperconvergence":{"successful":2,"skipped":0,"failed":0,"details":[]},
      "podHyperconvergence":{"successful":0,"skipped":1,"failed":1,
        "details":[{"name":"db-0","namespace":"data","status":"Failed","reason":"X: y"}]}}})");
  BOOST_REQUIRE_MESSAGE(so.has_value(), (so ? std::string() : so.err().message));
  BOOST_TEST(so->spec.kinds.size() == 2u); // a null field names no kind
  BOOST_TEST(so->spec.kinds.at("vmHyperconvergence").enabled);
  BOOST_TEST(!so->spec.kinds.at("podHyperconvergence").enabled);
  // The fragment is kept whole for the kind's own code to read.
  auto pod = nlohmann::json::parse(so->spec.kinds.at("podHyperconvergence").json);
  BOOST_TEST(pod.at("maxParallelEvictions") == 3);
  auto vm = decode_vm_hyperconvergence_spec(so->spec.kinds.at(vm_hyperconvergence_kind));
  BOOST_REQUIRE(vm);
  BOOST_TEST(vm->cool_off_period.value() == "90s");
  BOOST_TEST(so->status.kinds.size() == 2u);
  const auto* pods = block_of(so->status, "podHyperconvergence");
  BOOST_REQUIRE(pods);
  BOOST_TEST(pods->failed == 1);
  BOOST_REQUIRE(pods->details.size() == 1u);
  BOOST_TEST(pods->details[0].name == "db-0");
  BOOST_TEST(pods->details[0].status == detail_status::failed);
  BOOST_TEST(block_of(so->status, "vmHyperconvergence")->successful == 2);
  // A kind's fragment of the wrong type makes the whole spec invalid, whatever its name.
  auto bad = decode_scheduling_optimization(
    R"({"metadata":{"name":"r4"},"spec":{"podHyperconvergence":{"enabled":1}}})");
  BOOST_REQUIRE(bad);
  BOOST_TEST(bad->spec.invalid.value_or("") == "spec.podHyperconvergence.enabled: expected boolean, got number");
}

BOOST_AUTO_TEST_CASE(vmi_list_with_continue_token) {
  auto list = decode_list<virtual_machine_instance>(fixture("vmi-list-continue.json"));
  BOOST_REQUIRE_MESSAGE(list.has_value(), (list ? std::string() : list.err().message));
  BOOST_TEST(list->continue_token
             == "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDQxODM5MSwic3RhcnQiOiJ2bXMvdm0tMlx1MDAwMCJ9");
  BOOST_TEST(list->resource_version == "4418391");
  BOOST_REQUIRE(list->items.size() == 3u);
  BOOST_TEST(list->items[1].metadata.name == "vm-2");
  BOOST_TEST(list->items[1].node_name == "worker-2");
  BOOST_TEST(list->items[1].conditions.at(0).status == "False");
  BOOST_TEST(list->items[1].conditions.at(0).reason == "DisksNotLiveMigratable");
  BOOST_TEST(list->items[2].volumes.at(0).claim_name == "vm-3-root");
}

BOOST_AUTO_TEST_CASE(list_with_null_or_missing_items_is_empty) {
  auto null_items = decode_list<virtual_machine_instance>(fixture("vmi-list-null-items.json"));
  BOOST_REQUIRE(null_items);
  BOOST_TEST(null_items->items.empty());
  BOOST_TEST(null_items->resource_version == "17");
  auto missing = decode_list<node>(R"({"kind":"NodeList","metadata":{"resourceVersion":"3"}})");
  BOOST_REQUIRE(missing);
  BOOST_TEST(missing->items.empty());
  BOOST_TEST(missing->resource_version == "3");
}

BOOST_AUTO_TEST_CASE(null_fields_read_as_absent) {
  auto vmi = decode_vmi(
    R"({"metadata":{"name":"v","annotations":null,"ownerReferences":null},"spec":{"volumes":null},"status":null})");
  BOOST_REQUIRE_MESSAGE(vmi.has_value(), (vmi ? std::string() : vmi.err().message));
  BOOST_TEST(vmi->metadata.annotations.empty());
  BOOST_TEST(vmi->controller_vm.empty());
  BOOST_TEST(vmi->volumes.empty());
  auto vmim = decode_vmim(
    R"({"metadata":{"name":"m","labels":null,"creationTimestamp":null,"deletionTimestamp":null},"spec":{"vmiName":"v"}})");
  BOOST_REQUIRE_MESSAGE(vmim.has_value(), (vmim ? std::string() : vmim.err().message));
  BOOST_TEST(vmim->metadata.labels.empty());
  BOOST_TEST(vmim->metadata.creation_timestamp == "");
  BOOST_TEST(!vmim->metadata.deletion_timestamp.has_value());
  BOOST_TEST(vmi->phase == "");
}

BOOST_AUTO_TEST_CASE(deletion_timestamp_is_kept) {
  auto vmim = decode_vmim(
    R"({"metadata":{"name":"m","namespace":"n","deletionTimestamp":"2026-11-30T12:00:00Z","finalizers":["kubevirt.io/migrationJobFinalize"]},"spec":{"vmiName":"v"}})");
  BOOST_REQUIRE(vmim);
  BOOST_TEST(vmim->metadata.deletion_timestamp.value() == "2026-11-30T12:00:00Z");
  BOOST_TEST(vmim->metadata.finalizers.size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
