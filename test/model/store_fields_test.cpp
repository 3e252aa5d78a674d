// What an informer store keeps of a decoded object (model/store_fields.hpp and the lean
// structs of model/objects.hpp): the fields decisions read stay, the rest is gone.
#include <boost/test/unit_test.hpp>

#include "model/decode.hpp"
#include "model/store_fields.hpp"
#include "model/fixture_file.hpp"

using namespace schedopt;
using schedopt::test::fixture;

BOOST_AUTO_TEST_SUITE(store_fields)

BOOST_AUTO_TEST_CASE(a_pvc_keeps_its_identity_and_binding) {
  // The fixture has CDI annotations, labels and finalizers: object_identity has no room
  // for them, so the decoder skips them.
  auto pvc = decode_pvc(fixture("pvc.json"));
  BOOST_REQUIRE(pvc);
  BOOST_CHECK_EQUAL(pvc->metadata.name, "rhel9-web-01-data");
  BOOST_CHECK_EQUAL(pvc->metadata.namespace_, "web");
  BOOST_CHECK_EQUAL(pvc->metadata.resource_version, "4410030");
  BOOST_CHECK(!pvc->volume_name.empty());
}

BOOST_AUTO_TEST_CASE(a_pv_keeps_its_driver_handle_claim_and_affinity) {
  auto pv = decode_pv(fixture("pv-portworx.json"));
  BOOST_REQUIRE(pv);
  BOOST_CHECK_EQUAL(pv->metadata.name, "pvc-3f1d2c4b-8e7a-4f60-9b2d-1c0e5a6b7d8e");
  BOOST_CHECK(!pv->metadata.resource_version.empty());
  BOOST_CHECK_EQUAL(pv->csi_driver, "pxd.portworx.com");
  BOOST_CHECK(!pv->volume_handle.empty());
  auto local = decode_pv(fixture("pv-local.json"));
  BOOST_REQUIRE(local);
  BOOST_CHECK(!affinity_hostnames_of(*local).empty());
}

BOOST_AUTO_TEST_CASE(a_vmi_keeps_what_cool_off_and_filters_read) {
  auto vmi = decode_vmi(fixture("vmi-running.json"));
  BOOST_REQUIRE(vmi);
  vmi->metadata.annotations["kubevirt.io/latest-observed-api-version"] = "v1";
  vmi->metadata.annotations["cool/at"] = "2026-12-01T10:00:00Z";
  vmi->metadata.annotations["cool/at-request-uid"] = "u1";
  vmi->volumes.push_back({"cloudinitdisk", "", volume_source::other});
  // LiveMigratable=False is what the evaluation reads; the fixture says True.
  for (auto& c : vmi->conditions)
    if (c.type == "LiveMigratable") {
      c.status = "False";
      c.reason = "DisksNotLiveMigratable";
    }
  auto before = *vmi;
  BOOST_REQUIRE(before.conditions.size() > 1u);
  keep_decision_fields(*vmi, kept_fields{{"cool/at", "cool/at-request-uid"}});
  BOOST_CHECK(vmi->metadata.annotations == (string_map{{"cool/at", "2026-12-01T10:00:00Z"},
                                                       {"cool/at-request-uid", "u1"}}));
  // Owner references: the controlling VirtualMachine's name, decoded.
  BOOST_CHECK_EQUAL(vmi->controller_vm, "rhel9-web-01");
  BOOST_CHECK_EQUAL(vmi->metadata.uid, before.metadata.uid);
  BOOST_CHECK_EQUAL(vmi->node_name, before.node_name);
  // Volumes: the claim-backed ones, in order.
  std::vector<std::string> claimed, kept;
  for (auto& v : before.volumes)
    if (v.source != volume_source::other)
      claimed.push_back(v.name);
  for (auto& v : vmi->volumes)
    kept.push_back(v.name);
  BOOST_CHECK(!claimed.empty());
  BOOST_CHECK(kept == claimed);
  // Conditions: LiveMigratable=False alone, whole but for its transition time.
  const condition* live = nullptr;
  for (auto& c : before.conditions)
    if (c.type == "LiveMigratable")
      live = &c;
  BOOST_REQUIRE(live);
  BOOST_REQUIRE_EQUAL(vmi->conditions.size(), 1u);
  BOOST_CHECK_EQUAL(vmi->conditions[0].type, "LiveMigratable");
  BOOST_CHECK_EQUAL(vmi->conditions[0].status, live->status);
  BOOST_CHECK_EQUAL(vmi->conditions[0].reason, live->reason);
  BOOST_CHECK_EQUAL(vmi->conditions[0].message, live->message);
  BOOST_CHECK(vmi->conditions[0].last_transition_time.empty());
}

BOOST_AUTO_TEST_CASE(without_kept_keys_a_vmi_keeps_every_annotation) {
  auto vmi = decode_vmi(fixture("vmi-running.json"));
  BOOST_REQUIRE(vmi);
  vmi->metadata.annotations["a"] = "1";
  auto before = vmi->metadata.annotations;
  keep_decision_fields(*vmi);
  BOOST_CHECK(vmi->metadata.annotations == before);
}

BOOST_AUTO_TEST_CASE(a_live_migratable_vmi_keeps_no_condition) {
  auto vmi = decode_vmi(fixture("vmi-running.json"));
  BOOST_REQUIRE(vmi);
  BOOST_REQUIRE(!vmi->conditions.empty()); // Ready, LiveMigratable=True, AgentConnected
  keep_decision_fields(*vmi, kept_fields{});
  BOOST_CHECK(vmi->conditions.empty());
}

BOOST_AUTO_TEST_CASE(a_vm_keeps_its_identity_and_the_cool_off_record_only) {
  virtual_machine vm;
  vm.metadata.namespace_ = "ns1";
  vm.metadata.name = "vm-a";
  vm.metadata.uid = "u-vm";
  vm.metadata.resource_version = "42";
  vm.metadata.annotations = {{"cool/at", "2026-12-01T10:00:00Z"},
                             {"kubectl.kubernetes.io/last-applied-configuration", "{...}"}};
  keep_decision_fields(vm, kept_fields{{"cool/at", "cool/at-request-uid"}});
  BOOST_CHECK_EQUAL(vm.metadata.namespace_, "ns1");
  BOOST_CHECK_EQUAL(vm.metadata.name, "vm-a");
  BOOST_CHECK_EQUAL(vm.metadata.uid, "u-vm");
  BOOST_CHECK_EQUAL(vm.metadata.resource_version, "42");
  BOOST_CHECK(vm.metadata.annotations == (string_map{{"cool/at", "2026-12-01T10:00:00Z"}}));
}

BOOST_AUTO_TEST_SUITE_END()
