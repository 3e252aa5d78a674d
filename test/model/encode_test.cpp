// Bodies schedopt sends: compared as parsed JSON, so key order and spacing do not matter.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "model/fixture_file.hpp"
#include "model/decode.hpp"
#include "model/encode.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"

using namespace schedopt;
using nlohmann::json;
using schedopt::test::fixture;

namespace {

/// `{"status": value}` of a status patch that is only its `add /status` operation.
json status_of(const std::string& body) {
  json ops = json::parse(body); // throws, failing the case, if escaping were wrong
  BOOST_REQUIRE(ops.is_array() && ops.size() == 1);
  BOOST_TEST(ops[0]["op"] == "add");
  BOOST_TEST(ops[0]["path"] == "/status");
  return json{{"status", ops[0]["value"]}};
}

} // namespace

BOOST_AUTO_TEST_SUITE(encode)

BOOST_AUTO_TEST_CASE(status_patch_tests_the_uid_before_it_adds_the_status) {
  scheduling_optimization_status st;
  st.stage = request_stage::pending;
  st.status = request_status::pending;
  json ops = json::parse(status_json_patch(st, "uid-1"));
  BOOST_REQUIRE_EQUAL(ops.size(), 2u);
  BOOST_TEST(ops[0] == json::parse(R"({"op":"test","path":"/metadata/uid","value":"uid-1"})"));
  BOOST_TEST(ops[1]["op"] == "add");
  BOOST_TEST(ops[1]["value"]["stage"] == "Pending");
}

BOOST_AUTO_TEST_CASE(status_patch_reencodes_the_golden_status) {
  auto so = decode_scheduling_optimization(fixture("schedulingoptimization.json"));
  BOOST_REQUIRE(so.has_value());
  json patch = status_of(status_json_patch(so->status, ""));
  json want = json{{"status", json::parse(fixture("schedulingoptimization.json"))["status"]}};
  BOOST_TEST(patch == want, "got " << patch.dump() << "\nwant " << want.dump());
}

BOOST_AUTO_TEST_CASE(status_patch_of_a_fresh_run) {
  scheduling_optimization_status st;
  st.stage = request_stage::evaluating;
  st.status = request_status::in_progress;
  st.start_timestamp = "2026-11-30T12:00:01Z";
  st.last_update_timestamp = "2026-11-30T12:00:01Z";
  st.observed_generation = 1;
  st.kinds[vm_hyperconvergence_kind] = kind_status_block{};
  json patch = status_of(status_json_patch(st, ""));
  json want = json::parse(R"({"status":{"stage":"Evaluating","status":"InProgress",
    "startTimestamp":"2026-11-30T12:00:01Z","lastUpdateTimestamp":"2026-11-30T12:00:01Z",
    "observedGeneration":1,
    "vmHyperconvergence":{"successful":0,"skipped":0,"failed":0,"details":[]}}})");
  BOOST_TEST(patch == want, "got " << patch.dump());
  BOOST_TEST(patch["status"]["vmHyperconvergence"]["details"].is_array());
}

BOOST_AUTO_TEST_CASE(status_patch_escapes_hostile_strings) {
  scheduling_optimization_status st;
  st.stage = request_stage::final_;
  st.status = request_status::failed;
  st.reason = "driver failure: \"quoted\"\n\tback\\slash \x01 ü";
  st.kinds[vm_hyperconvergence_kind] = kind_status_block{};
  st.kinds.at(vm_hyperconvergence_kind).details.push_back({"vm\"1", "ns", detail_status::failed,
                                             "MigrationCreateFailed: <b>\"x\"</b>"});
  std::string body = status_json_patch(st, "");
  json patch = status_of(body); // would throw if escaping were wrong
  BOOST_TEST(patch["status"]["reason"] == st.reason);
  BOOST_TEST(patch["status"]["vmHyperconvergence"]["details"][0]["name"] == "vm\"1");
  BOOST_TEST(body.find("\\u0001") != std::string::npos);
  // Invalid UTF-8 is replaced rather than thrown on.
  st.reason = "bad \xff byte";
  BOOST_CHECK_NO_THROW(status_of(status_json_patch(st, "")));
}

BOOST_AUTO_TEST_CASE(status_patch_without_vm_block_omits_it) {
  scheduling_optimization_status st;
  st.stage = request_stage::pending;
  st.status = request_status::pending;
  json patch = status_of(status_json_patch(st, ""));
  BOOST_TEST(patch == json::parse(R"({"status":{"stage":"Pending","status":"Pending","observedGeneration":0}})"),
             "got " << patch.dump());
}

BOOST_AUTO_TEST_CASE(status_patch_carries_every_kind_block) {
  scheduling_optimization_status st;
  st.stage = request_stage::migrating;
  st.status = request_status::in_progress;
  st.kinds["vmHyperconvergence"] = kind_status_block{1, 0, 0, {}};
  st.kinds["podHyperconvergence"] =
    kind_status_block{0, 1, 0, {{"db-0", "data", detail_status::skipped, "DisruptionBudget: x"}}};
  auto ops = json::parse(status_json_patch(st, "u"));
  auto& value = ops.back().at("value");
  BOOST_TEST(value.at("vmHyperconvergence").at("successful") == 1);
  BOOST_TEST(value.at("vmHyperconvergence").at("details").is_array());
  BOOST_TEST(value.at("podHyperconvergence").at("skipped") == 1);
  BOOST_TEST(value.at("podHyperconvergence").at("details").at(0).at("reason") == "DisruptionBudget: x");
  // And back: the decoder reads every block it wrote.
  auto so = decode_scheduling_optimization(R"({"metadata":{"name":"x"},"status":)" + value.dump() + "}");
  BOOST_REQUIRE(so);
  BOOST_TEST(so->status.kinds.size() == 2u);
  BOOST_TEST(so->status.kinds.at("podHyperconvergence").details.at(0).name == "db-0");
}

BOOST_AUTO_TEST_CASE(vmim_create_body) {
  virtual_machine_instance_migration m;
  m.metadata.generate_name = "vm-1-schedopt-";
  m.metadata.namespace_ = "vms";
  m.metadata.labels = {{"app.kubernetes.io/managed-by", "schedopt"},
                       {"schedopt.libopenstorage.org/request-uid", "u-1"}};
  m.metadata.annotations = {{"schedopt.libopenstorage.org/source-node", "worker-1"}};
  m.vmi_name = "vm-1";
  m.added_node_selector = {{"kubernetes.io/hostname", "worker-2"}};
  m.phase = "Running"; // status is never part of a create body
  json want = json::parse(R"({"apiVersion":"kubevirt.io/v1","kind":"VirtualMachineInstanceMigration",
    "metadata":{"generateName":"vm-1-schedopt-","namespace":"vms",
      "labels":{"app.kubernetes.io/managed-by":"schedopt","schedopt.libopenstorage.org/request-uid":"u-1"},
      "annotations":{"schedopt.libopenstorage.org/source-node":"worker-1"}},
    "spec":{"vmiName":"vm-1","addedNodeSelector":{"kubernetes.io/hostname":"worker-2"}}})");
  BOOST_TEST(to_json(m) == want, "got " << to_json(m).dump());
  m.added_node_selector.clear();
  BOOST_TEST(!to_json(m)["spec"].contains("addedNodeSelector"));
}

BOOST_AUTO_TEST_CASE(lease_body_round_trips) {
  auto l = decode_lease(fixture("lease.json"));
  BOOST_REQUIRE(l.has_value());
  json j = to_json(*l);
  json want = json::parse(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
    "metadata":{"name":"schedopt-leader","namespace":"schedopt","uid":"6b5a4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d",
      "resourceVersion":"4419001","creationTimestamp":"2026-11-30T08:00:00Z"},
    "spec":{"holderIdentity":"schedopt-7d9f8c6b5-xk2lp_2b1c0d9e","leaseDurationSeconds":15,
      "acquireTime":"2026-11-30T08:00:00.000000Z","renewTime":"2026-11-30T12:20:02.481516Z","leaseTransitions":3}})");
  BOOST_TEST(j == want, "got " << j.dump());
}

BOOST_AUTO_TEST_CASE(event_body) {
  event e;
  e.metadata.name = "pool-failover-1.1";
  e.metadata.namespace_ = "default";
  e.involved_object = {"stork.libopenstorage.org/v1alpha1", "SchedulingOptimization", "pool-failover-1", "", "u-1", ""};
  e.type = "Normal";
  e.reason = "Started";
  e.message = "run started";
  e.first_timestamp = e.last_timestamp = "2026-11-30T12:00:01Z";
  e.source_component = e.reporting_component = "schedopt";
  json want = json::parse(R"({"apiVersion":"v1","kind":"Event",
    "metadata":{"name":"pool-failover-1.1","namespace":"default"},
    "involvedObject":{"apiVersion":"stork.libopenstorage.org/v1alpha1","kind":"SchedulingOptimization","name":"pool-failover-1","uid":"u-1"},
    "type":"Normal","reason":"Started","message":"run started","count":1,
    "firstTimestamp":"2026-11-30T12:00:01Z","lastTimestamp":"2026-11-30T12:00:01Z",
    "source":{"component":"schedopt"},"reportingComponent":"schedopt"})");
  BOOST_TEST(to_json(e) == want, "got " << to_json(e).dump());
}

BOOST_AUTO_TEST_CASE(metadata_omits_empty_fields) {
  object_meta m;
  m.name = "x";
  BOOST_TEST(to_json(m) == json::parse(R"({"name":"x"})"));
  m.owner_references.push_back({"kubevirt.io/v1", "VirtualMachine", "vm", "u", true});
  m.deletion_timestamp = "2026-11-30T12:00:00Z";
  m.finalizers = {"f"};
  m.generation = 3;
  json want = json::parse(R"({"name":"x","generation":3,"deletionTimestamp":"2026-11-30T12:00:00Z","finalizers":["f"],
    "ownerReferences":[{"apiVersion":"kubevirt.io/v1","kind":"VirtualMachine","name":"vm","uid":"u","controller":true}]})");
  BOOST_TEST(to_json(m) == want, "got " << to_json(m).dump());
}

// Encoding a decoded golden object and decoding it again loses nothing the model keeps.
template <class T>
void check_round_trip(const std::string& name) {
  auto first = decode<T>(fixture(name));
  BOOST_REQUIRE_MESSAGE(first.has_value(), name << ": " << (first ? "" : first.err().message));
  json once = to_json(*first);
  auto second = decode<T>(once.dump());
  BOOST_REQUIRE_MESSAGE(second.has_value(), name << ": " << (second ? "" : second.err().message));
  BOOST_TEST(to_json(*second) == once, name << ": " << once.dump());
}

BOOST_AUTO_TEST_CASE(golden_objects_round_trip) {
  check_round_trip<virtual_machine_instance>("vmi-running.json");
  check_round_trip<persistent_volume>("pv-portworx.json");
  check_round_trip<persistent_volume>("pv-local.json");
  check_round_trip<persistent_volume_claim>("pvc.json");
  check_round_trip<node>("node-ready.json");
  check_round_trip<node>("node-cordoned-notready.json");
  check_round_trip<lease>("lease.json");
  check_round_trip<event>("event.json");
  check_round_trip<api_status>("status-409-conflict.json");
  check_round_trip<api_status>("status-429.json");
  check_round_trip<scheduling_optimization>("schedulingoptimization.json");
  auto vmim = decode_vmim(fixture("vmim-failed.json"));
  BOOST_REQUIRE(vmim.has_value());
  json once = to_json_with_status(*vmim);
  auto again = decode_vmim(once.dump());
  BOOST_REQUIRE(again.has_value());
  BOOST_TEST(to_json_with_status(*again) == once);
  BOOST_TEST(once["status"]["migrationState"]["failureReason"] == vmim->migration->failure_reason);
}

BOOST_AUTO_TEST_CASE(scheduling_optimization_create_body) {
  scheduling_optimization so;
  so.metadata.name = "typical";
  so.spec.kinds[vm_hyperconvergence_kind] =
    to_kind_spec(vm_hyperconvergence_spec{true, std::nullopt, std::nullopt});
  json want = json::parse(R"({"apiVersion":"stork.libopenstorage.org/v1alpha1","kind":"SchedulingOptimization",
    "metadata":{"name":"typical"},"spec":{"vmHyperconvergence":{"enabled":true}}})");
  BOOST_TEST(to_json(so) == want, "got " << to_json(so).dump());
  so.spec.kinds[vm_hyperconvergence_kind] =
    to_kind_spec(vm_hyperconvergence_spec{true, std::string("30m"), 10});
  BOOST_TEST(to_json(so)["spec"] == json::parse(R"({"vmHyperconvergence":{"enabled":true,"coolOffPeriod":"30m","maxParallelMigrations":10}})"));
}

BOOST_AUTO_TEST_SUITE_END()
