// Hostile input (docs/testing.md), objects: VMIs, PVCs and PVs with missing or odd fields among
// a healthy fleet. Each is skipped with a reason (or, when it does not decode at all,
// a log line and a metric); every real candidate still migrates.
#include <boost/test/unit_test.hpp>

#include "e2e/bad_input.hpp"

using namespace schedopt::e2e;

namespace {

/// A copy of `vmi` named `name` with `volumes` as its spec.volumes, created with the
/// original's status (Running on its node).
void clone_vmi(const sim_process& sim, json vmi, const std::string& name, const json& volumes) {
  auto ns = vmi["metadata"]["namespace"].get<std::string>();
  vmi["metadata"] = {{"name", name}, {"namespace", ns}, {"labels", vmi["metadata"].value("labels", json::object())}};
  vmi["spec"]["volumes"] = volumes;
  // The status goes in the create: the simulated VMI has no /status subresource.
  auto path = "/apis/kubevirt.io/v1/namespaces/" + ns + "/virtualmachineinstances";
  call(sim, "POST", path, vmi, 201);
}

json claim_volume(const std::string& claim) {
  return json::array({{{"name", "disk0"}, {"persistentVolumeClaim", {{"claimName", claim}}}}});
}

void create_pvc(const sim_process& sim, const std::string& ns, const std::string& name, const std::string& pv) {
  json spec = {{"accessModes", {"ReadWriteMany"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}};
  if (!pv.empty())
    spec["volumeName"] = pv;
  call(sim, "POST", "/api/v1/namespaces/" + ns + "/persistentvolumeclaims",
       {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}, {"metadata", {{"name", name}, {"namespace", ns}}},
        {"spec", spec}}, 201);
}

/// A PV of `like`'s CSI driver whose node affinity is `affinity` (null: none at all).
void create_pv(const sim_process& sim, const json& like, const std::string& name, const json& affinity) {
  json pv = {{"apiVersion", "v1"}, {"kind", "PersistentVolume"}, {"metadata", {{"name", name}}},
             {"spec", {{"capacity", {{"storage", "1Gi"}}}, {"accessModes", {"ReadWriteMany"}},
                       {"csi", like["spec"]["csi"]}}}};
  pv["spec"]["csi"]["volumeHandle"] = name;
  if (!affinity.is_null())
    pv["spec"]["nodeAffinity"] = affinity;
  call(sim, "POST", "/api/v1/persistentvolumes", pv, 201);
}

json hostname_affinity(const std::string& node) {
  return {{"required", {{"nodeSelectorTerms", json::array({{{"matchExpressions", json::array({
            {{"key", "kubernetes.io/hostname"}, {"operator", "In"}, {"values", {node}}}})}}})}}}};
}

} // namespace

BOOST_AUTO_TEST_SUITE(bad_input)

BOOST_AUTO_TEST_CASE(odd_vmis_pvcs_and_pvs_are_skipped_with_a_reason) {
  scenario s("csi-topology", fleet_flags("37"));
  auto truth = s.truth();
  auto candidates = required_candidates(truth);
  const vmi_truth* settled = nullptr; // a hyperconverged VMI to copy
  for (auto& t : truth)
    if (t.has_driver_volume && !t.misplaced)
      settled = &t;
  BOOST_REQUIRE(settled != nullptr);
  auto vmi = get(s.sim(), "/apis/kubevirt.io/v1/namespaces/" + settled->ns + "/virtualmachineinstances/" + settled->name);
  auto any_pv = items(s.sim(), "/api/v1/persistentvolumes").at(0);
  const auto& ns = settled->ns;

  clone_vmi(s.sim(), vmi, "odd-volumes-not-a-list", "disk0");
  clone_vmi(s.sim(), vmi, "odd-missing-pvc", claim_volume("ghost-pvc"));
  create_pvc(s.sim(), ns, "unbound-pvc", "");
  clone_vmi(s.sim(), vmi, "odd-unbound-pvc", claim_volume("unbound-pvc"));
  create_pvc(s.sim(), ns, "lost-pv-pvc", "pv-that-is-not-there");
  clone_vmi(s.sim(), vmi, "odd-missing-pv", claim_volume("lost-pv-pvc"));
  create_pv(s.sim(), any_pv, "pv-on-no-node", hostname_affinity("node-that-does-not-exist"));
  create_pvc(s.sim(), ns, "no-node-pvc", "pv-on-no-node");
  clone_vmi(s.sim(), vmi, "odd-replica-on-unknown-node", claim_volume("no-node-pvc"));

  s.start_controller();
  s.create_request("objects-good", scenario::enabled_spec());
  auto good = s.wait_final("objects-good");
  expect_every_candidate_migrated(s.sim(), good, candidates, {}, "PartialSuccess");
  auto details = details_by_vm(good);
  struct skip_row {
    std::string vm;
    std::string reason;
  };
  for (auto& row : {skip_row{"odd-missing-pvc", "EvaluationError: persistentvolumeclaims \"ghost-pvc\" not found"},
                    skip_row{"odd-unbound-pvc", "EvaluationError: "},
                    skip_row{"odd-missing-pv", "EvaluationError: persistentvolumes \"pv-that-is-not-there\" not found"},
                    skip_row{"odd-replica-on-unknown-node", "NoTargetNode: "}})
    BOOST_TEST_CONTEXT("row " << row.vm) {
      auto& d = details[ns + "/" + row.vm];
      BOOST_TEST(d.value("status", "") == "Skipped");
      BOOST_TEST(starts_with(d.value("reason", ""), row.reason), "reason: " << d.value("reason", ""));
    }
  BOOST_TEST_CONTEXT("row odd-volumes-not-a-list") {
    BOOST_TEST(details.count(ns + "/odd-volumes-not-a-list") == 0u);
    BOOST_TEST(s.controller().err().find("informer virtualmachineinstances: skipping undecodable list item " + ns
                                         + "/odd-volumes-not-a-list: items[")
               != std::string::npos); // the item's index in the page, then the field
    BOOST_TEST(s.controller().err().find("].spec.volumes: expected array, got string")
               != std::string::npos);
    BOOST_TEST(metric(s.controller(), "schedopt_decode_errors_total{resource=\"virtualmachineinstances\"}") == 1);
  }
  BOOST_TEST(counter(good, "skipped") == 4);
  expect_same_controller(s);
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
