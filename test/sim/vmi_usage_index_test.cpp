// The VMI usage index against a populated store: it starts from the VMIs that exist,
// follows moves and deletions, and agrees with a scan of the store.
#include <boost/test/unit_test.hpp>

#include "sim/target_pod_scheduler.hpp"

#include <map>

#include "kubevirt_test_fixture.hpp"
#include "sim/vmi_usage_index.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace schedopt::sim::testing;

namespace {

std::map<std::string, vmi_usage> snapshot_of(const vmi_usage_index& index) {
  std::map<std::string, vmi_usage> out;
  index.for_each([&](const std::string& name, const vmi_usage& u) { out[name] = u; });
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(vmi_usage_index_suite)

BOOST_AUTO_TEST_CASE(indexes_existing_vmis_and_follows_writes) {
  scenario_options o;
  o.nodes = 3;
  o.vmis = 6;
  o.seed = 11;
  populated_store world{o};
  auto index = std::make_shared<vmi_usage_index>();
  index->attach(world.store);

  auto before = snapshot_of(*index);
  auto vmis = world.vmis();
  BOOST_REQUIRE_EQUAL(before.size(), vmis.size());
  for (const auto& v : vmis) {
    auto name = v["metadata"]["namespace"].get<std::string>() + "/" + v["metadata"]["name"].get<std::string>();
    BOOST_REQUIRE(before.count(name));
    BOOST_TEST(before[name].node == v["status"]["nodeName"].get<std::string>());
    BOOST_TEST(before[name].phase == "Running");
    BOOST_TEST(before[name].requests.cpu_millis == 100);
    // The VMI's 4Gi plus virt-launcher's overhead: what its pod asks the scheduler for.
    BOOST_TEST(before[name].requests.memory_bytes == 4LL * 1024 * 1024 * 1024 + launcher_memory_overhead(v));
    BOOST_TEST(launcher_memory_overhead(v) > 260LL * 1024 * 1024);
  }

  const auto& first = vmis.front();
  auto ns = first["metadata"]["namespace"].get<std::string>();
  auto name = first["metadata"]["name"].get<std::string>();
  BOOST_REQUIRE(world.store.modify(kubevirt::vmi_key, ns, name, [](json& obj) {
    obj["status"]["nodeName"] = "elsewhere";
    return true;
  }, true));
  BOOST_TEST(snapshot_of(*index)[ns + "/" + name].node == "elsewhere");

  BOOST_REQUIRE(world.store.remove(kubevirt::vmi_key, ns, name));
  auto after = snapshot_of(*index);
  BOOST_TEST(after.size() == vmis.size() - 1);
  BOOST_TEST(!after.count(ns + "/" + name));
}

BOOST_AUTO_TEST_SUITE_END()
