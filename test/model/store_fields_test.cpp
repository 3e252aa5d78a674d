// What an informer store keeps of a decoded object (model/store_fields.hpp): the fields
// decisions read stay, the rest is gone.
#include <boost/test/unit_test.hpp>

#include "model/decode.hpp"
#include "model/store_fields.hpp"
#include "fixture_file.hpp"

using namespace schedopt;
using schedopt::test::fixture;

BOOST_AUTO_TEST_SUITE(store_fields)

BOOST_AUTO_TEST_CASE(a_pvc_keeps_its_identity_and_binding) {
  auto pvc = decode_pvc(fixture("pvc.json"));
  BOOST_REQUIRE(pvc);
  BOOST_REQUIRE(!pvc->metadata.annotations.empty());
  auto volume = pvc->volume_name;
  keep_decision_fields(*pvc);
  BOOST_CHECK_EQUAL(pvc->metadata.name, "rhel9-web-01-data");
  BOOST_CHECK_EQUAL(pvc->metadata.namespace_, "web");
  BOOST_CHECK_EQUAL(pvc->metadata.uid, "3f1d2c4b-8e7a-4f60-9b2d-1c0e5a6b7d8e");
  BOOST_CHECK_EQUAL(pvc->metadata.resource_version, "4410030");
  BOOST_CHECK(!volume.empty());
  BOOST_CHECK_EQUAL(pvc->volume_name, volume);
  BOOST_CHECK(pvc->metadata.annotations.empty());
  BOOST_CHECK(pvc->metadata.labels.empty());
  BOOST_CHECK(pvc->metadata.finalizers.empty());
  BOOST_CHECK(pvc->metadata.creation_timestamp.empty());
}

BOOST_AUTO_TEST_CASE(a_pv_keeps_its_driver_handle_claim_and_affinity) {
  auto pv = decode_pv(fixture("pv-portworx.json"));
  BOOST_REQUIRE(pv);
  auto before = *pv;
  BOOST_REQUIRE(!before.metadata.finalizers.empty());
  keep_decision_fields(*pv);
  BOOST_CHECK_EQUAL(pv->metadata.name, before.metadata.name);
  BOOST_CHECK_EQUAL(pv->csi_driver, before.csi_driver);
  BOOST_CHECK_EQUAL(pv->volume_handle, before.volume_handle);
  BOOST_CHECK_EQUAL(pv->claim_namespace, before.claim_namespace);
  BOOST_CHECK_EQUAL(pv->claim_name, before.claim_name);
  BOOST_CHECK(pv->affinity_hostnames == before.affinity_hostnames);
  BOOST_CHECK(pv->metadata.annotations.empty());
  BOOST_CHECK(pv->metadata.finalizers.empty());
}

BOOST_AUTO_TEST_CASE(a_vmi_keeps_what_cool_off_and_filters_read) {
  auto vmi = decode_vmi(fixture("vmi-running.json"));
  BOOST_REQUIRE(vmi);
  auto before = *vmi;
  BOOST_REQUIRE(!before.metadata.labels.empty());
  BOOST_REQUIRE(!before.conditions.empty());
  keep_decision_fields(*vmi);
  BOOST_CHECK(vmi->metadata.labels.empty());
  BOOST_CHECK(vmi->metadata.finalizers.empty());
  BOOST_CHECK(vmi->metadata.annotations == before.metadata.annotations);
  BOOST_CHECK_EQUAL(vmi->metadata.owner_references.size(), before.metadata.owner_references.size());
  BOOST_CHECK_EQUAL(vmi->metadata.uid, before.metadata.uid);
  BOOST_CHECK_EQUAL(vmi->node_name, before.node_name);
  BOOST_CHECK_EQUAL(vmi->volumes.size(), before.volumes.size());
  BOOST_REQUIRE_EQUAL(vmi->conditions.size(), before.conditions.size());
  for (std::size_t i = 0; i < vmi->conditions.size(); ++i) {
    BOOST_CHECK_EQUAL(vmi->conditions[i].type, before.conditions[i].type);
    BOOST_CHECK_EQUAL(vmi->conditions[i].status, before.conditions[i].status);
    BOOST_CHECK_EQUAL(vmi->conditions[i].reason, before.conditions[i].reason);
    BOOST_CHECK_EQUAL(vmi->conditions[i].message, before.conditions[i].message);
    BOOST_CHECK(vmi->conditions[i].last_transition_time.empty());
  }
}

BOOST_AUTO_TEST_SUITE_END()
