// The served KubeVirt CR and the migration configuration read from it: virt-config's
// defaults per release, field-by-field overlay, the last valid config kept, live patches.
#include <boost/test/unit_test.hpp>

#include "kubevirt_test_fixture.hpp"
#include "sim/kubevirt_config.hpp"
#include "sim/kubevirt_controller.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace schedopt::sim::testing;
using namespace std::chrono_literals;

namespace {

void patch_migrations(object_store& store, const json& migrations) {
  auto patched = store.modify(
      kubevirt_cr_key, kubevirt_cr_namespace, kubevirt_cr_name,
      [&](json& obj) {
        obj["spec"]["configuration"]["migrations"].merge_patch(migrations);
        return true;
      },
      false);
  BOOST_REQUIRE(patched);
}

} // namespace

BOOST_AUTO_TEST_SUITE(kubevirt_config_suite)

BOOST_AUTO_TEST_CASE(defaults_follow_the_release) {
  BOOST_TEST(default_migration_config({3}).completion_timeout_per_gib == 800);
  for (int minor : {4, 5, 6}) {
    auto c = default_migration_config({minor});
    BOOST_TEST(c.completion_timeout_per_gib == 150);
    BOOST_TEST(c.parallel_migrations_per_cluster == 5);
    BOOST_TEST(c.parallel_outbound_migrations_per_node == 2);
    BOOST_TEST(c.progress_timeout == 150);
    BOOST_TEST(c.bandwidth_per_migration == 0);
  }
}

BOOST_AUTO_TEST_CASE(the_cr_overlays_the_defaults_field_by_field) {
  json cr = {{"spec", {{"configuration", {{"migrations", {{"parallelMigrationsPerCluster", 9},
                                                          {"bandwidthPerMigration", "64Mi"}}}}}}}};
  auto c = parse_migration_config(cr, default_migration_config({6}));
  BOOST_REQUIRE(c);
  BOOST_TEST(c->parallel_migrations_per_cluster == 9);
  BOOST_TEST(c->parallel_outbound_migrations_per_node == 2);
  BOOST_TEST(c->bandwidth_per_migration == 64LL * 1024 * 1024);
  BOOST_TEST(c->completion_timeout_per_gib == 150);
  BOOST_TEST(!parse_migration_config({{"spec", {{"configuration", {{"migrations", {{"progressTimeout", "x"}}}}}}}},
                                     default_migration_config({6})));
  BOOST_TEST(!parse_migration_config(
      {{"spec", {{"configuration", {{"migrations", {{"parallelMigrationsPerCluster", -1}}}}}}}},
      default_migration_config({6})));
}

BOOST_AUTO_TEST_CASE(creates_namespace_and_deployed_cr) {
  object_store store;
  register_world_types(store);
  serve_kubevirt_type(store);
  BOOST_REQUIRE(create_kubevirt_cr(store, {5}, {{"parallelMigrationsPerCluster", 3}}));
  BOOST_TEST(store.get("namespaces", "", "kubevirt").has_value());
  auto cr = store.get(kubevirt_cr_key, "kubevirt", "kubevirt");
  BOOST_REQUIRE(cr);
  BOOST_TEST((*cr)["kind"] == "KubeVirt");
  BOOST_TEST((*cr)["apiVersion"] == "kubevirt.io/v1");
  BOOST_TEST((*cr)["status"]["phase"] == "Deployed");
  BOOST_TEST((*cr)["status"]["observedKubeVirtVersion"] == "v1.5.0");
  BOOST_TEST((*cr)["status"]["targetKubeVirtVersion"] == "v1.5.0");
  BOOST_TEST((*cr)["spec"]["configuration"]["migrations"]["parallelMigrationsPerCluster"] == 3);

  migration_config fallback;
  fallback.parallel_migrations_per_cluster = 42;
  migration_config_reader reader{{5}, fallback};
  BOOST_TEST(reader.read(store).parallel_migrations_per_cluster == 3);
  // An invalid edit keeps the last valid configuration, as ClusterConfig.GetConfig does.
  patch_migrations(store, {{"parallelMigrationsPerCluster", "many"}});
  BOOST_TEST(reader.read(store).parallel_migrations_per_cluster == 3);
  patch_migrations(store, {{"parallelMigrationsPerCluster", 7}});
  BOOST_TEST(reader.read(store).parallel_migrations_per_cluster == 7);
}

BOOST_AUTO_TEST_CASE(no_cr_means_the_fallback) {
  object_store store;
  register_world_types(store);
  migration_config fallback;
  fallback.parallel_migrations_per_cluster = 42;
  migration_config_reader reader{{6}, fallback};
  BOOST_TEST(reader.read(store).parallel_migrations_per_cluster == 42);
}

// kubectl patch kubevirt kubevirt -n kubevirt ... parallelMigrationsPerCluster: applies
// on the next tick of a running controller.
BOOST_AUTO_TEST_CASE(a_patched_cap_applies_live) {
  scenario_options o;
  o.nodes = 4;
  o.vmis = 8;
  o.seed = 5;
  populated_store w{o};
  serve_kubevirt_type(w.store);
  BOOST_REQUIRE(create_kubevirt_cr(w.store, {6}, {{"parallelMigrationsPerCluster", 1},
                                                  {"parallelOutboundMigrationsPerNode", 5}}));
  kubevirt_controller_options c;
  c.migrations.parallel_migrations_per_cluster = 100; // the fallback, unused with a CR
  c.stages = default_migration_stages(10ms, 60s); // Running lasts: slots stay taken
  c.held_requeue = 100ms;
  kubevirt_controller controller{w.store, c};
  for (const auto& vmi : w.vmis())
    BOOST_REQUIRE(w.migrate(vmi));
  auto now = std::chrono::system_clock::now();
  auto active = [&] {
    int n = 0;
    for (const auto& m : w.vmims())
      if (phase_of(m) != "Pending" && !phase_of(m).empty())
        ++n;
    return n;
  };
  for (int i = 0; i < 20; ++i)
    controller.tick(now += 100ms);
  BOOST_TEST(active() == 1);
  patch_migrations(w.store, {{"parallelMigrationsPerCluster", 3}});
  for (int i = 0; i < 20; ++i)
    controller.tick(now += 100ms);
  BOOST_TEST(active() == 3);
}

BOOST_AUTO_TEST_SUITE_END()
