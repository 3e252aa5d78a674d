// Wire-level: aggregated discovery and the custom resources' OpenAPI v3 documents, in
// the shapes kube-apiserver v1.37 answers.
#include <boost/test/unit_test.hpp>

#include "wire_fixture.hpp"
#include "wire_http.hpp"

using namespace schedopt::test;
using nlohmann::json;

namespace {

const std::string aggregated_accept =
  "Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

json resource_named(const json& version, const std::string& name) {
  for (const auto& r : version["resources"])
    if (r["resource"] == name)
      return r;
  return nullptr;
}

} // namespace

BOOST_AUTO_TEST_SUITE(wire_discovery)

BOOST_AUTO_TEST_CASE(aggregated_discovery_when_asked_for) {
  auto& sim = shared_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto core = http_request(sim, "GET", "/api", {}, {}, "\x01", {aggregated_accept});
  BOOST_TEST(core.status == 200);
  BOOST_TEST(core.headers.find("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
             != std::string::npos);
  auto doc = core.json();
  BOOST_TEST(doc["kind"] == "APIGroupDiscoveryList");
  BOOST_REQUIRE(doc["items"].size() == 1u);
  auto pods = resource_named(doc["items"][0]["versions"][0], "pods");
  BOOST_REQUIRE(pods.is_object());
  BOOST_TEST(pods["responseKind"] == (json{{"group", ""}, {"version", ""}, {"kind", "Pod"}}));
  BOOST_TEST(pods["scope"] == "Namespaced");
  bool eviction = false;
  for (const auto& sub : pods["subresources"])
    if (sub["subresource"] == "eviction")
      eviction = sub["responseKind"] == (json{{"group", "policy"}, {"version", "v1"}, {"kind", "Eviction"}});
  BOOST_TEST(eviction);

  auto groups = http_request(sim, "GET", "/apis", {}, {}, "\x01", {aggregated_accept}).json();
  json stork;
  for (const auto& g : groups["items"])
    if (g["metadata"]["name"] == "stork.libopenstorage.org")
      stork = g;
  BOOST_REQUIRE(stork.is_object());
  auto so = resource_named(stork["versions"][0], "schedulingoptimizations");
  BOOST_TEST(so["responseKind"]["group"] == "stork.libopenstorage.org"); // a CRD's names its group
  BOOST_TEST(so["scope"] == "Cluster");
  BOOST_TEST(so["subresources"][0]["subresource"] == "status");

  // Without the media type, the unaggregated document as before.
  auto legacy = http_request(sim, "GET", "/apis").json();
  BOOST_TEST(legacy["kind"] == "APIGroupList");
}

BOOST_AUTO_TEST_CASE(openapi_v3_serves_the_crds_schemas) {
  auto& sim = shared_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto index = http_request(sim, "GET", "/openapi/v3").json();
  auto entry = index["paths"]["apis/stork.libopenstorage.org/v1alpha1"];
  BOOST_REQUIRE(entry.is_object());
  auto url = entry["serverRelativeURL"].get<std::string>();
  BOOST_TEST(url.rfind("/openapi/v3/apis/stork.libopenstorage.org/v1alpha1?hash=", 0) == 0);
  auto doc = http_request(sim, "GET", url).json();
  auto schema = doc["components"]["schemas"]["org.libopenstorage.stork.v1alpha1.SchedulingOptimization"];
  BOOST_REQUIRE(schema.is_object());
  BOOST_TEST(schema["x-kubernetes-group-version-kind"][0]["kind"] == "SchedulingOptimization");
  BOOST_TEST(schema["properties"]["spec"]["properties"].contains("vmHyperconvergence"));
  BOOST_TEST(index["paths"].contains("api/v1") == false); // no built-in schemas here
  BOOST_TEST(http_request(sim, "GET", "/openapi/v3/apis/apps/v1").status == 404);
}

BOOST_AUTO_TEST_SUITE_END()
