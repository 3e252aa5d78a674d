// KubeVirt's VMIM create webhook as the simulator applies it: each rejection with
// KubeVirt's message and status, and the label/finalizer the mutator adds.
#include <boost/test/unit_test.hpp>

#include "kubevirt_test_fixture.hpp"
#include "sim/kubevirt_config.hpp"
#include "sim/request_user.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace schedopt::sim::testing;

namespace {

scenario_options small(double not_migratable = 0.0) {
  scenario_options o;
  o.nodes = 4;
  o.vmis = 8;
  o.not_migratable = not_migratable;
  o.seed = 11;
  return o;
}

const std::string denied = "admission webhook \"migration-create-validator.kubevirt.io\" denied the request: ";

} // namespace

BOOST_AUTO_TEST_SUITE(kubevirt_admission)

BOOST_AUTO_TEST_CASE(admitted_vmim_gets_label_and_finalizer) {
  populated_store w{small()};
  auto vmi = w.vmis().front();
  auto made = w.migrate(vmi);
  BOOST_REQUIRE(made);
  BOOST_CHECK_EQUAL((*made)["metadata"]["labels"]["kubevirt.io/vmi-name"], vmi["metadata"]["name"]);
  auto finalizers = (*made)["metadata"]["finalizers"];
  BOOST_CHECK(std::find(finalizers.begin(), finalizers.end(), "kubevirt.io/migrationJobFinalize") != finalizers.end());
}

BOOST_AUTO_TEST_CASE(missing_vmi_name_is_invalid) {
  populated_store w{small()};
  json m = {{"metadata", {{"generateName", "x-"}, {"namespace", "vms-a"}}}, {"spec", json::object()}};
  auto made = w.store.create(kubevirt::vmim_key, m);
  BOOST_REQUIRE(!made);
  BOOST_CHECK_EQUAL(made.err().http_status, 422);
  BOOST_CHECK_EQUAL(made.err().message, denied + "vmiName is missing");
}

BOOST_AUTO_TEST_CASE(missing_vmi_is_rejected) {
  populated_store w{small()};
  json vmi = {{"metadata", {{"name", "nope"}, {"namespace", "vms-a"}}}};
  auto made = w.migrate(vmi);
  BOOST_REQUIRE(!made);
  BOOST_CHECK_EQUAL(made.err().http_status, 400);
  BOOST_CHECK_EQUAL(made.err().message, denied + "the VMI \"vms-a/nope\" does not exist");
  BOOST_CHECK(w.vmims().empty());
}

BOOST_AUTO_TEST_CASE(finished_vmi_is_rejected) {
  populated_store w{small()};
  auto vmi = w.vmis().front();
  BOOST_REQUIRE(w.store.modify(kubevirt::vmi_key, vmi["metadata"]["namespace"], vmi["metadata"]["name"],
                               [](json& o) {
                                 o["status"]["phase"] = "Succeeded";
                                 return true;
                               }));
  auto made = w.migrate(vmi);
  BOOST_REQUIRE(!made);
  BOOST_CHECK_EQUAL(made.err().message, denied + "Cannot migrate VMI in finalized state.");
}

BOOST_AUTO_TEST_CASE(not_live_migratable_is_rejected_with_kubevirt_message) {
  populated_store w{small(1.0)};
  auto vmi = w.vmis().front();
  auto made = w.migrate(vmi);
  BOOST_REQUIRE(!made);
  auto claim = vmi["spec"]["volumes"][0].contains("dataVolume")
                   ? vmi["spec"]["volumes"][0]["dataVolume"]["name"].get<std::string>()
                   : vmi["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"].get<std::string>();
  BOOST_CHECK_EQUAL(made.err().message,
                    denied + "Cannot migrate VMI, Reason: DisksNotLiveMigratable, Message: cannot migrate VMI: PVC " +
                        claim +
                        " is not shared, live migration requires that all PVCs must be shared (using ReadWriteMany "
                        "access mode)");
  BOOST_CHECK_EQUAL(made.err().code, ec::invalid_request);
}

BOOST_AUTO_TEST_CASE(second_in_flight_migration_is_rejected_until_the_first_ends) {
  populated_store w{small()};
  auto vmi = w.vmis().front();
  auto first = w.migrate(vmi);
  BOOST_REQUIRE(first);
  auto second = w.migrate(vmi);
  BOOST_REQUIRE(!second);
  BOOST_CHECK_EQUAL(second.err().message,
                    denied + "in-flight migration detected. Active migration job (" +
                        (*first)["metadata"]["uid"].get<std::string>() +
                        ") is currently already in progress for VMI " + vmi["metadata"]["name"].get<std::string>() +
                        ".");
  // Another VMI is unaffected.
  BOOST_CHECK(w.migrate(w.vmis().back()));
  // Once the first is final a new one is admitted.
  BOOST_REQUIRE(w.store.modify(kubevirt::vmim_key, (*first)["metadata"]["namespace"], (*first)["metadata"]["name"],
                               [](json& o) {
                                 o["status"]["phase"] = "Failed";
                                 return true;
                               },
                               true));
  BOOST_CHECK(w.migrate(vmi));
}

BOOST_AUTO_TEST_SUITE_END()

// KubeVirt 1.7 on: spec.priority is virt-controller's alone, and in 1.7 and 1.8 only while
// the MigrationPriorityQueue gate is listed in the KubeVirt CR
// (migration-create-admitter.go Admit and its test, "handling priority field").
BOOST_AUTO_TEST_SUITE(kubevirt_admission_priority)

namespace {

scenario_options on(int minor) {
  auto o = small();
  o.kubevirt = kubevirt_version{minor};
  return o;
}

/// A store of `minor` with its KubeVirt CR deployed, as serve starts one.
struct release_store : populated_store {
  explicit release_store(int minor) : populated_store(on(minor)) {
    serve_kubevirt_type(store);
    BOOST_REQUIRE(create_kubevirt_cr(store, kubevirt_version{minor}, json::object()));
  }
};

std::string controller_of(const object_store& store) {
  auto cr = find_kubevirt_cr(store);
  BOOST_REQUIRE(cr.has_value());
  return "system:serviceaccount:" + (*cr)["metadata"]["namespace"].get<std::string>() + ":kubevirt-controller";
}

expected<json> migrate_with_priority(populated_store& w, const std::string& user, const json& priority = "system-critical") {
  request_user_scope as{user};
  auto vmi = w.vmis().front();
  json m = {{"metadata", {{"generateName", "p-"}, {"namespace", vmi["metadata"]["namespace"]}}},
            {"spec", {{"vmiName", vmi["metadata"]["name"]}, {"priority", priority}}}};
  return w.store.create(kubevirt::vmim_key, m);
}

void list_gate(populated_store& w) {
  auto cr = find_kubevirt_cr(w.store);
  BOOST_REQUIRE(cr.has_value());
  BOOST_REQUIRE(w.store.modify(kubevirt_cr_key, (*cr)["metadata"]["namespace"], (*cr)["metadata"]["name"], [](json& kv) {
    kv["spec"]["configuration"]["developerConfiguration"]["featureGates"] = {"MigrationPriorityQueue"};
    return true;
  }));
}

} // namespace

BOOST_AUTO_TEST_CASE(on_1_9_only_virt_controller_may_set_a_priority) {
  release_store w{9};
  auto refused = migrate_with_priority(w, "system:serviceaccount:schedopt:schedopt");
  BOOST_REQUIRE(!refused);
  BOOST_CHECK_EQUAL(refused.err().http_status, 422);
  BOOST_CHECK_EQUAL(refused.err().message,
                    denied + "Migration priority queue, only virt-controller is allowed to set priority field");
  // A service account of the same name in another namespace is not virt-controller.
  BOOST_CHECK(!migrate_with_priority(w, "system:serviceaccount:elsewhere:kubevirt-controller"));
  BOOST_CHECK(w.vmims().empty());
  BOOST_CHECK(migrate_with_priority(w, controller_of(w.store)));
}

BOOST_AUTO_TEST_CASE(on_1_8_the_gate_is_checked_first_even_for_virt_controller) {
  release_store w{8};
  auto refused = migrate_with_priority(w, controller_of(w.store));
  BOOST_REQUIRE(!refused);
  BOOST_CHECK_EQUAL(refused.err().http_status, 422);
  BOOST_CHECK_EQUAL(refused.err().message,
                    denied + "MigrationPriorityQueue feature gate is not enabled in kubevirt resource");
  list_gate(w);
  auto user = migrate_with_priority(w, "system:serviceaccount:schedopt:schedopt");
  BOOST_REQUIRE(!user);
  BOOST_CHECK_EQUAL(user.err().message,
                    denied + "Migration priority queue, only virt-controller is allowed to set priority field");
  BOOST_CHECK(migrate_with_priority(w, controller_of(w.store)));
}

BOOST_AUTO_TEST_CASE(without_a_priority_anyone_may_migrate_and_before_1_7_there_is_no_check) {
  release_store nine{9};
  request_user_scope as{"system:serviceaccount:schedopt:schedopt"};
  BOOST_CHECK(nine.migrate(nine.vmis().front()));
  // 1.6 has no priority field: its schema prunes it before any webhook sees it.
  release_store six{6};
  BOOST_CHECK(migrate_with_priority(six, "system:serviceaccount:schedopt:schedopt"));
}

BOOST_AUTO_TEST_SUITE_END()
