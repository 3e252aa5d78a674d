// csi-topology storage driver: replicas come from the PVs' node affinity; ownership
// follows the configured CSI driver names.
#include <boost/test/unit_test.hpp>

#include "actor_fixture.hpp"
#include "actors/drivers/storage_drivers.hpp"

using namespace schedopt;
using namespace schedopt::test;

namespace {

persistent_volume pv(const std::string& name, const std::string& driver,
                     std::vector<std::string> hosts) {
  persistent_volume v;
  v.metadata.name = name;
  v.csi_driver = driver;
  v.volume_handle = name + "-handle";
  v.affinity_hostnames = std::move(hosts);
  return v;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(csi_topology_driver, actor_fixture)

BOOST_AUTO_TEST_CASE(replica_answer_lists_node_affinity_hosts_per_pv) {
  auto entry = find_storage_driver("csi-topology");
  BOOST_REQUIRE(entry);
  auto spawned = entry->spawn(sys, settings{});
  BOOST_REQUIRE(spawned);
  auto aut = track(*spawned);
  replica_query q;
  q.volumes = share_all(std::vector<persistent_volume>{pv("pv-a", "local.csi.io", {"n1", "n3"}),
                                                      pv("pv-b", "local.csi.io", {"n2"})});
  auto answer = ask<replica_answer>(sys, aut, q);
  sched.run();
  BOOST_REQUIRE(answer->value);
  auto& r = answer->value->replicas;
  BOOST_REQUIRE_EQUAL(r.size(), 2u);
  BOOST_CHECK_EQUAL(r.count("pv-a"), 1u);
  BOOST_CHECK((r.at("pv-a") == replica_nodes{"n1", "n3"}));
  BOOST_CHECK_EQUAL(r.count("pv-b"), 1u);
  BOOST_CHECK((r.at("pv-b") == replica_nodes{"n2"}));
  BOOST_CHECK(answer->value->errors.empty());
}

BOOST_AUTO_TEST_CASE(owns_pvs_with_affinity_of_configured_drivers) {
  auto entry = find_storage_driver("csi-topology");
  BOOST_REQUIRE(entry);
  settings any_driver;
  settings only_local;
  only_local.csi_topology_drivers = {"local.csi.io"};
  BOOST_CHECK(entry->owns(pv("a", "other.csi.io", {"n1"}), any_driver));
  BOOST_CHECK(!entry->owns(pv("a", "other.csi.io", {"n1"}), only_local));
  BOOST_CHECK(entry->owns(pv("a", "local.csi.io", {"n1"}), only_local));
  BOOST_CHECK(!entry->owns(pv("a", "local.csi.io", {}), any_driver)); // no affinity
}

BOOST_AUTO_TEST_CASE(unknown_driver_name_is_a_clear_error) {
  auto entry = find_storage_driver("nope");
  BOOST_REQUIRE(!entry);
  BOOST_CHECK_NE(error_message(entry.error()).find("known: "), std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
