// docs/design.md §3.2: the KubeVirt CR decoded, KubeVirt's defaults, the buffer cap,
// the derived per-VM timeout, and KubeVirt's own waiting migrations.
#include <boost/test/unit_test.hpp>

#include "model/decode.hpp"
#include "model/ownership_labels.hpp"
#include "model/kubevirt_config.hpp"

using namespace schedopt;
using namespace std::chrono_literals;

namespace {

kubevirt_cr cr_of(const std::string& json) {
  auto cr = decode<kubevirt_cr>(json);
  BOOST_REQUIRE_MESSAGE(bool(cr), (cr ? std::string{} : cr.err().message));
  return *cr;
}

virtual_machine_instance vmi_with_memory(const char* quantity_json) {
  auto v = decode_vmi(std::string{R"({"metadata":{"name":"vm","namespace":"ns"},
    "spec":{"domain":{"resources":{"requests":{"memory":)"} + quantity_json + "}}}}}");
  BOOST_REQUIRE(bool(v));
  return *v;
}

virtual_machine_instance_migration vmim(std::string phase, bool ours,
                                        string_map annotations = {}) {
  virtual_machine_instance_migration m;
  m.metadata.namespace_ = "ns";
  m.metadata.name = "m";
  m.phase = std::move(phase);
  m.metadata.annotations = std::move(annotations);
  if (ours)
    m.metadata.labels[labels::managed_by] = labels::managed_by_value;
  return m;
}

} // namespace

BOOST_AUTO_TEST_SUITE(kubevirt_config)

BOOST_AUTO_TEST_CASE(the_cr_is_decoded_with_its_migration_configuration) {
  auto cr = cr_of(R"({"apiVersion":"kubevirt.io/v1","kind":"KubeVirt",
    "metadata":{"name":"kubevirt","namespace":"kubevirt","resourceVersion":"7"},
    "spec":{"configuration":{"migrations":{"parallelMigrationsPerCluster":3,
      "parallelOutboundMigrationsPerNode":1,"completionTimeoutPerGiB":100,
      "progressTimeout":60,"bandwidthPerMigration":"64Mi"}}},
    "status":{"phase":"Deployed","observedKubeVirtVersion":"v1.6.0"}})");
  BOOST_CHECK_EQUAL(cr.metadata.name, "kubevirt");
  BOOST_CHECK_EQUAL(cr.phase, "Deployed");
  auto l = migration_limits_of(cr);
  BOOST_CHECK_EQUAL(l.parallel_migrations_per_cluster, 3);
  BOOST_CHECK_EQUAL(l.parallel_outbound_migrations_per_node, 1);
  BOOST_CHECK_EQUAL(l.completion_timeout_per_gib, 100);
  BOOST_CHECK_EQUAL(l.progress_timeout_seconds, 60);
  BOOST_CHECK(l.pinning_supported);
  BOOST_CHECK_EQUAL(l.version, "v1.6.0");
}

// The MigrationPriorityQueue gate (pkg/virt-config/featuregate): listed in the CR from
// 1.7, always on from 1.9; unknown versions are taken as without it.
BOOST_AUTO_TEST_CASE(the_priority_queue_follows_the_release_and_the_listed_gate) {
  auto cr = cr_of(R"({"apiVersion":"kubevirt.io/v1","kind":"KubeVirt",
    "metadata":{"name":"kubevirt","namespace":"kubevirt"},
    "spec":{"configuration":{"developerConfiguration":{"featureGates":["LiveMigration","MigrationPriorityQueue"]}}},
    "status":{"observedKubeVirtVersion":"v1.8.4"}})");
  BOOST_CHECK(migration_limits_of(cr).priority_queue);
  cr.observed_version = "v1.6.6";
  BOOST_CHECK(!migration_limits_of(cr).priority_queue); // no such gate before 1.7
  cr.observed_version = "v1.7.4";
  BOOST_CHECK(migration_limits_of(cr).priority_queue);
  cr.feature_gates = {"LiveMigration"};
  BOOST_CHECK(!migration_limits_of(cr).priority_queue);
  cr.observed_version = "v1.9.0";
  BOOST_CHECK(migration_limits_of(cr).priority_queue);
  cr.observed_version = "";
  BOOST_CHECK(!migration_limits_of(cr).priority_queue);
}

BOOST_AUTO_TEST_CASE(absent_fields_take_kubevirts_defaults_for_its_version) {
  auto on = [](const char* version) {
    kubevirt_cr cr;
    cr.observed_version = version;
    return migration_limits_of(cr);
  };
  auto v16 = on("v1.6.0");
  BOOST_CHECK_EQUAL(v16.parallel_migrations_per_cluster, 5);
  BOOST_CHECK_EQUAL(v16.parallel_outbound_migrations_per_node, 2);
  BOOST_CHECK_EQUAL(v16.completion_timeout_per_gib, 150);
  BOOST_CHECK_EQUAL(v16.progress_timeout_seconds, 150);
  BOOST_CHECK_EQUAL(on("v1.3.1").completion_timeout_per_gib, 800);
  BOOST_CHECK_EQUAL(on("v1.4.0").completion_timeout_per_gib, 150);
  BOOST_CHECK_EQUAL(on("").completion_timeout_per_gib, 150);
  // Pinning (spec.addedNodeSelector) from 1.6; an unknown version lets a VMIM decide.
  BOOST_CHECK(!on("v1.5.2").pinning_supported);
  BOOST_CHECK(!on("v1.3.0").pinning_supported);
  BOOST_CHECK(on("v1.6.0-rc.1").pinning_supported);
  BOOST_CHECK(on("v1.7.0").pinning_supported);
  BOOST_CHECK(on("v2.0.0").pinning_supported);
  BOOST_CHECK(on("devel").pinning_supported);
  kubevirt_cr zero;
  zero.parallel_migrations_per_cluster = 0;
  BOOST_CHECK_EQUAL(migration_limits_of(zero).parallel_migrations_per_cluster, 5);
}

BOOST_AUTO_TEST_CASE(versions_parse_as_kubevirt_writes_them) {
  BOOST_CHECK((parse_kubevirt_version("v1.6.0") == std::pair{1, 6}));
  BOOST_CHECK((parse_kubevirt_version("1.13") == std::pair{1, 13}));
  BOOST_CHECK((parse_kubevirt_version("v1.5.0-beta.0") == std::pair{1, 5}));
  BOOST_CHECK(!parse_kubevirt_version(""));
  BOOST_CHECK(!parse_kubevirt_version("v1"));
  BOOST_CHECK(!parse_kubevirt_version("latest"));
}

// Only the built-in default is capped by parallelMigrationsPerCluster; an explicit
// maxParallelMigrations is a hint schedopt honours (KubeVirt queues the excess).
BOOST_AUTO_TEST_CASE(the_default_buffer_is_at_most_parallel_migrations_per_cluster) {
  kubevirt_migration_limits l;
  l.parallel_migrations_per_cluster = 3;
  BOOST_CHECK_EQUAL(in_flight_capacity(5, false, l), 3);
  BOOST_CHECK_EQUAL(in_flight_capacity(2, false, l), 2);
  BOOST_CHECK_EQUAL(in_flight_capacity(8, true, l), 8);
  BOOST_CHECK_EQUAL(in_flight_capacity(5, false, std::nullopt), 5);
}

// KubeVirt's migration monitor: completionTimeoutPerGiB × the data size in decimal
// gigabytes rounded up (Quantity.ScaledValue(resource.Giga)), plus progressTimeout.
BOOST_AUTO_TEST_CASE(the_default_timeout_is_kubevirts_bound) {
  kubevirt_cr cr;
  cr.observed_version = "v1.6.0";
  auto limits = migration_limits_of(cr);
  auto fallback = duration{30min};
  auto decimal = vmi_with_memory(R"("64G")");
  BOOST_CHECK(migration_timeout_for(decimal, std::nullopt, limits, fallback)
              == std::chrono::seconds(64 * 150 + 150));
  // 64Gi is 68.7 G: KubeVirt counts 69.
  auto binary = vmi_with_memory(R"("64Gi")");
  BOOST_CHECK_EQUAL(*migration_data_size_gb(binary), 69);
  BOOST_CHECK(migration_timeout_for(binary, std::nullopt, limits, fallback)
              == std::chrono::seconds(69 * 150 + 150));
  // Guest memory, when set, is what KubeVirt migrates.
  binary.guest_memory_bytes = int64_t{2} * 1000 * 1000 * 1000;
  BOOST_CHECK_EQUAL(*migration_data_size_gb(binary), 2);
  // An explicit migrationTimeout wins; no KubeVirt CR, or no memory: the fallback.
  BOOST_CHECK(migration_timeout_for(decimal, duration{10min}, limits, fallback) == 10min);
  BOOST_CHECK(migration_timeout_for(decimal, std::nullopt, std::nullopt, fallback) == 30min);
  BOOST_CHECK(migration_timeout_for(virtual_machine_instance{}, std::nullopt, limits, fallback)
              == 30min);
  cr.observed_version = "v1.3.0";
  BOOST_CHECK(migration_timeout_for(decimal, std::nullopt, migration_limits_of(cr), fallback)
              == std::chrono::seconds(64 * 800 + 150));
}

// KubeVirt's own migrations (evacuations, workload updates) waiting for a slot hold
// schedopt back; counted one event at a time.
BOOST_AUTO_TEST_CASE(kubevirts_own_waiting_migrations_are_counted_incrementally) {
  auto evacuation = vmim("Pending", false, {{"kubevirt.io/evacuationMigration", "node-1"}});
  BOOST_CHECK(is_kubevirt_migration_waiting(evacuation));
  BOOST_CHECK(is_kubevirt_migration_waiting(vmim("", false)));
  BOOST_CHECK(!is_kubevirt_migration_waiting(vmim("Pending", true)));
  BOOST_CHECK(!is_kubevirt_migration_waiting(vmim("Scheduling", false)));
  BOOST_CHECK(!is_kubevirt_migration_waiting(vmim("Failed", false)));

  kubevirt_waiting_migrations w;
  BOOST_CHECK(w.observe("ns/evac", evacuation));
  BOOST_CHECK(!w.observe("ns/evac", evacuation)); // an update that changes nothing
  BOOST_CHECK(w.observe("ns/upd", vmim("", false)));
  BOOST_CHECK(!w.observe("ns/ours", vmim("Pending", true)));
  BOOST_CHECK_EQUAL(w.count(), 2u);
  BOOST_CHECK(w.observe("ns/evac", vmim("Running", false)));
  BOOST_CHECK(w.erase("ns/upd"));
  BOOST_CHECK(!w.erase("ns/upd"));
  BOOST_CHECK_EQUAL(w.count(), 0u);
}

BOOST_AUTO_TEST_SUITE_END()
