// VMI status churn: MODIFIED events at the set rate, each changing only status fields
// virt-handler writes from the guest agent (none that schedopt reads).
#include <boost/test/unit_test.hpp>

#include "kubevirt_test_fixture.hpp"
#include "sim/vmi_churn.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace schedopt::sim::testing;
using namespace std::chrono_literals;

namespace {

/// The VMI without what the churn may change.
json without_churned_fields(json vmi) {
  for (auto field : {"resourceVersion", "generation"})
    vmi["metadata"].erase(field);
  auto& status = vmi["status"];
  status.erase("guestOSInfo");
  status["memory"].erase("guestCurrent");
  for (auto& nic : status["interfaces"])
    nic.erase("ipAddresses");
  for (auto& c : status["conditions"])
    if (c["type"] == "AgentConnected")
      c.erase("lastProbeTime");
  return vmi;
}

} // namespace

BOOST_AUTO_TEST_SUITE(vmi_churn_suite)

BOOST_AUTO_TEST_CASE(churn_writes_modified_events_at_the_rate_on_guest_agent_fields_only) {
  object_store store;
  storage_backend storage;
  vmi_churn churn{store, {200.0, 100ms, 3}};
  register_world_types(store);
  scenario_options o;
  o.vmis = 50;
  populate(store, storage, o);
  std::map<std::string, json> before;
  for (auto& v : store.list(kubevirt::vmi_key).items)
    before[v["metadata"]["name"].get<std::string>()] = without_churned_fields(v);
  auto since = store.resource_version();

  auto now = std::chrono::system_clock::now();
  churn.tick(now);
  std::size_t written = 0;
  for (int i = 0; i < 20; ++i) // two simulated seconds
    written += churn.tick(now += 100ms);
  BOOST_CHECK_EQUAL(written, 400u);

  auto events = store.events_since(kubevirt::vmi_key, "", since);
  BOOST_REQUIRE(events);
  BOOST_CHECK_EQUAL(events->size(), 400u);
  for (auto& e : *events) {
    BOOST_CHECK_EQUAL(e.type, "MODIFIED");
    auto name = e.object["metadata"]["name"].get<std::string>();
    BOOST_CHECK(without_churned_fields(e.object) == before[name]);
  }
}

BOOST_AUTO_TEST_CASE(no_rate_no_writes) {
  object_store store;
  storage_backend storage;
  vmi_churn churn{store, {0.0, 100ms, 3}};
  register_world_types(store);
  scenario_options o;
  o.vmis = 10;
  populate(store, storage, o);
  auto now = std::chrono::system_clock::now();
  churn.tick(now);
  BOOST_CHECK_EQUAL(churn.tick(now + 5s), 0u);
}

BOOST_AUTO_TEST_SUITE_END()
