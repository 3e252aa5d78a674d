// Scenario generation: reproducible for a seed, misplaced fraction honoured (scored
// independently here), objects shaped and linked as a real cluster links them.
#include <boost/test/unit_test.hpp>

#include "kubevirt_test_fixture.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace schedopt::sim::testing;

namespace {

const char* keys[] = {"nodes", "namespaces", "persistentvolumeclaims", "persistentvolumes",
                      "virtualmachines.kubevirt.io", "virtualmachineinstances.kubevirt.io"};

/// Drops what the store assigns and wall-clock times: the rest must be a function of the seed.
void strip(json& j) {
  if (j.is_object()) {
    for (auto field : {"uid", "resourceVersion", "creationTimestamp", "lastTransitionTime",
                       "virtualMachineRevisionName", "generation", "managedFields"})
      j.erase(field);
    for (auto& [k, v] : j.items())
      strip(v);
  } else if (j.is_array()) {
    for (auto& v : j)
      strip(v);
  }
}

json dump(populated_store& w) {
  json all = json::object();
  for (auto key : keys) {
    json items = json::array();
    for (auto item : w.store.list(key).items) {
      strip(item);
      items.push_back(item);
    }
    all[key] = items;
  }
  return all;
}

scenario_options opts(uint64_t seed, std::string driver = "portworx") {
  scenario_options o;
  o.nodes = 6;
  o.vmis = 100;
  o.volumes_per_vmi = 2;
  o.replicas = 2;
  o.misplaced = 0.3;
  o.not_migratable = 0.1;
  o.driver = std::move(driver);
  o.seed = seed;
  return o;
}

} // namespace

BOOST_AUTO_TEST_SUITE(scenario_generation)

BOOST_AUTO_TEST_CASE(same_seed_same_objects_other_seed_other_objects) {
  populated_store a{opts(7)}, b{opts(7)}, c{opts(8)};
  auto da = dump(a), db = dump(b), dc = dump(c);
  BOOST_CHECK_EQUAL(da["virtualmachineinstances.kubevirt.io"].size(), 100u);
  BOOST_CHECK(da == db);
  BOOST_CHECK(da != dc);
  BOOST_CHECK(da["persistentvolumes"] != dc["persistentvolumes"]);
  auto va = a.storage.volumes(), vb = b.storage.volumes();
  BOOST_REQUIRE_EQUAL(va.size(), vb.size());
  for (std::size_t i = 0; i < va.size(); ++i) {
    BOOST_CHECK_EQUAL(va[i].id, vb[i].id);
    BOOST_CHECK(va[i].replica_nodes == vb[i].replica_nodes);
  }
}

BOOST_AUTO_TEST_CASE(misplaced_fraction_is_honoured_for_every_driver) {
  for (auto driver : {"portworx", "csi-topology", "longhorn"}) {
    BOOST_TEST_CONTEXT("driver " << driver) {
      populated_store w{opts(21, driver)};
      int misplaced = 0;
      for (const auto& vmi : w.vmis()) {
        auto sets = replica_sets_of(w.store, w.storage, vmi);
        BOOST_REQUIRE_EQUAL(sets.size(), 2u);
        for (const auto& s : sets)
          BOOST_CHECK_EQUAL(s.size(), 2u);
        if (scores_below_best(sets, vmi["status"]["nodeName"]))
          ++misplaced;
      }
      BOOST_CHECK_EQUAL(misplaced, 30);
    }
  }
}

BOOST_AUTO_TEST_CASE(objects_are_linked_as_in_a_real_cluster) {
  populated_store w{opts(3, "csi-topology")};
  int owned = 0, standalone = 0, not_migratable = 0, other_driver = 0, data_volumes = 0;
  std::set<std::string> namespaces;
  for (const auto& vmi : w.vmis()) {
    namespaces.insert(vmi["metadata"]["namespace"]);
    BOOST_CHECK_EQUAL(vmi["status"]["phase"], "Running");
    BOOST_CHECK(w.store.get("nodes", "", vmi["status"]["nodeName"]));
    auto refs = vmi["metadata"].value("ownerReferences", json::array());
    if (refs.empty()) {
      ++standalone;
    } else {
      ++owned;
      BOOST_CHECK_EQUAL(refs[0]["kind"], "VirtualMachine");
      BOOST_CHECK_EQUAL(refs[0]["controller"], true);
      auto vm = w.store.get(kubevirt::vm_key, vmi["metadata"]["namespace"], refs[0]["name"]);
      BOOST_REQUIRE(vm);
      BOOST_CHECK_EQUAL((*vm)["metadata"]["uid"], refs[0]["uid"]);
    }
    for (const auto& c : vmi["status"]["conditions"])
      if (c["type"] == "LiveMigratable" && c["status"] == "False") {
        ++not_migratable;
        BOOST_CHECK_EQUAL(c["reason"], "DisksNotLiveMigratable");
      }
    for (const auto& v : vmi["spec"]["volumes"]) {
      std::string claim;
      if (v.contains("dataVolume")) {
        ++data_volumes;
        claim = v["dataVolume"]["name"];
      } else if (v.contains("persistentVolumeClaim")) {
        claim = v["persistentVolumeClaim"]["claimName"];
      } else {
        continue;
      }
      auto pvc = w.store.get("persistentvolumeclaims", vmi["metadata"]["namespace"], claim);
      BOOST_REQUIRE(pvc);
      BOOST_CHECK_EQUAL((*pvc)["status"]["phase"], "Bound");
      auto pv = w.store.get("persistentvolumes", "", (*pvc)["spec"]["volumeName"]);
      BOOST_REQUIRE(pv);
      BOOST_CHECK_EQUAL((*pv)["spec"]["claimRef"]["name"], claim);
      BOOST_CHECK_EQUAL((*pv)["spec"]["claimRef"]["uid"], (*pvc)["metadata"]["uid"]);
      BOOST_CHECK((*pv)["metadata"]["name"].get<std::string>().rfind("pvc-", 0) == 0);
      auto driver = (*pv)["spec"]["csi"]["driver"].get<std::string>();
      if (driver == topology_csi_driver)
        BOOST_CHECK((*pv)["spec"].contains("nodeAffinity"));
      else
        ++other_driver;
    }
  }
  BOOST_CHECK_EQUAL(namespaces.size(), 4u);
  BOOST_CHECK_GT(owned, 0);
  BOOST_CHECK_GT(standalone, 0);
  BOOST_CHECK_GT(data_volumes, 0);
  BOOST_CHECK_GT(other_driver, 0);
  BOOST_CHECK_EQUAL(not_migratable, 10);
  for (const auto& node : w.store.list("nodes").items) {
    BOOST_CHECK_EQUAL(node["metadata"]["labels"]["kubernetes.io/hostname"], node["metadata"]["name"]);
    bool ready = false;
    for (const auto& c : node["status"]["conditions"])
      ready = ready || (c["type"] == "Ready" && c["status"] == "True");
    BOOST_CHECK(ready);
    BOOST_CHECK_EQUAL(node["status"]["addresses"][0]["type"], "InternalIP");
  }
}

BOOST_AUTO_TEST_CASE(bad_options_are_named) {
  scenario_options o;
  o.replicas = 9;
  auto r = validate(o);
  BOOST_REQUIRE(!r);
  BOOST_CHECK(r.err().message.find("replicas") != std::string::npos);
  o = {};
  o.misplaced = 1.5;
  BOOST_CHECK(!validate(o));
  o = {};
  o.driver = "ceph";
  r = validate(o);
  BOOST_REQUIRE(!r);
  BOOST_CHECK(r.err().message.find("ceph") != std::string::npos);
  BOOST_CHECK(validate(scenario_options{}));
  // populate clamps instead of crashing.
  o = {};
  o.replicas = 50;
  o.nodes = 3;
  o.vmis = 5;
  populated_store w{o};
  BOOST_CHECK_EQUAL(w.vmis().size(), 5u);
}

BOOST_AUTO_TEST_SUITE_END()
