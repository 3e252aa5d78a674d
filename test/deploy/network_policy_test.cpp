// deploy/network-policy as kustomize renders it (kubectl kustomize; without kubectl the
// manifest is read as written and the component case is skipped, kubectl being
// optional): every egress rule names its destination, the API server and the Portworx
// gateway by ipBlock (both run outside the pod network), the gateway's port is the one
// portworxEndpoint names, metrics are open to the monitoring namespace only; and the
// cluster-addresses component a user copies replaces every placeholder, or fails loudly.
#include <boost/test/unit_test.hpp>

#include <map>
#include <set>
#include <string>

#include <yaml-cpp/yaml.h>

#include "config/settings.hpp"
#include "deploy/deploy_support.hpp"

namespace fs = std::filesystem;
using namespace schedopt::deploy_test;
namespace utf = boost::unit_test;

namespace {

// The placeholders networkpolicy.yaml ships (RFC 5737 documentation ranges).
const std::string api_server_placeholder = "192.0.2.0/24";
const std::string node_network_placeholder = "198.51.100.0/24";

// Skipped in Boost.Test's report only: the rest of test_deploy still counts in CTest.
boost::test_tools::assertion_result kubectl_present(utf::test_unit_id) {
  if (!on_path("kubectl").empty())
    return true;
  boost::test_tools::assertion_result r(false);
  r.message() << "kubectl missing: the component needs kustomize to render";
  return r;
}

/// `kubectl kustomize DIR`, as JSON objects; fails the test if kustomize does.
std::vector<json> render(const fs::path& dir) {
  auto out = run_shell("kubectl kustomize '" + dir.string() + "'");
  BOOST_REQUIRE_MESSAGE(out.first == 0, "kubectl kustomize " << dir << ":\n" << out.second);
  std::vector<json> objects;
  for (const auto& doc : YAML::LoadAll(out.second))
    objects.push_back(yaml_to_json(doc));
  return objects;
}

json schedopt_policy(const std::vector<json>& objects) {
  for (const auto& o : objects)
    if (o.value("kind", "") == "NetworkPolicy" && o["metadata"].value("name", "") == "schedopt")
      return o;
  BOOST_FAIL("no NetworkPolicy schedopt rendered");
  return {};
}

std::set<long long> ports_of(const json& rule) {
  std::set<long long> out;
  for (const auto& p : rule.value("ports", json::array()))
    out.insert(p.value("port", 0LL));
  return out;
}

/// The one rule of `rules` whose ports include `port`.
json rule_with_port(const json& rules, long long port) {
  json found;
  for (const auto& r : rules)
    if (ports_of(r).count(port)) {
      BOOST_TEST(found.is_null(), "two rules open port " << port);
      found = r;
    }
  BOOST_REQUIRE_MESSAGE(!found.is_null(), "no rule opens port " << port);
  return found;
}

/// The CIDRs of a rule's peers; fails the test for a peer that is not an ipBlock.
std::set<std::string> cidrs_of(const json& peers) {
  std::set<std::string> out;
  for (const auto& peer : peers) {
    BOOST_TEST(peer.size() == 1u, "a peer other than a bare ipBlock: " << peer.dump());
    BOOST_TEST(peer.contains("ipBlock"), "not an ipBlock: " << peer.dump());
    out.insert(peer.value("/ipBlock/cidr"_json_pointer, std::string()));
  }
  return out;
}

/// The port of an http(s) URL: the one after the host, else the scheme's.
long long port_of(const std::string& url) {
  auto host = url.find("://");
  auto rest = host == std::string::npos ? url : url.substr(host + 3);
  rest = rest.substr(0, rest.find('/'));
  auto colon = rest.rfind(':');
  if (colon == std::string::npos)
    return url.rfind("https://", 0) == 0 ? 443 : 80;
  return std::stoll(rest.substr(colon + 1));
}

/// portworxEndpoint of the ConfigMap deploy/manager ships.
std::string configmap_endpoint() {
  for (const auto& cm : manifest_objects("deploy/manager/configmap.yaml")) {
    auto file = YAML::Load(cm["data"].value("config.yaml", std::string()));
    if (file["portworxEndpoint"])
      return file["portworxEndpoint"].as<std::string>();
  }
  return {};
}

/// The value each `replace` of a JSON6902 patch file sets, by path.
std::map<std::string, json> replaced_values(const fs::path& patch) {
  std::map<std::string, json> out;
  for (const auto& op : YAML::LoadFile(patch.string()))
    if (op["op"].as<std::string>() == "replace")
      out[op["path"].as<std::string>()] = yaml_to_json(op["value"]);
  return out;
}

/// An overlay as docs/operations.md describes it: deploy/default plus a copy of the
/// cluster-addresses component. kustomize wants relative paths to bases.
fs::path overlay_with_component(const scratch_dir& tmp) {
  const fs::path deploy = fs::path(source_dir) / "deploy";
  fs::copy(deploy / "network-policy" / "cluster-addresses", tmp.path / "cluster-addresses",
           fs::copy_options::recursive);
  std::ofstream(tmp.path / "kustomization.yaml")
    << "resources:\n  - " << fs::relative(deploy / "default", tmp.path).string()
    << "\ncomponents:\n  - cluster-addresses\n";
  return tmp.path;
}

} // namespace

BOOST_AUTO_TEST_SUITE(network_policy)

BOOST_AUTO_TEST_CASE(every_egress_rule_names_its_destination) {
  json policy;
  if (on_path("kubectl").empty()) {
    policy = schedopt_policy(manifest_objects("deploy/network-policy/networkpolicy.yaml"));
    BOOST_TEST_MESSAGE("kubectl missing: deploy/network-policy/networkpolicy.yaml read, not rendered");
  } else {
    policy = schedopt_policy(render(fs::path(source_dir) / "deploy" / "default"));
  }
  const auto& spec = policy["spec"];
  BOOST_TEST(spec["policyTypes"] == json::parse(R"(["Ingress", "Egress"])"));
  BOOST_TEST(spec["podSelector"]["matchLabels"] == json::parse(R"({"app.kubernetes.io/name": "schedopt"})"));

  // No rule may allow a port to any address: a rule without `to` (or an empty one) does.
  for (const auto& rule : spec["egress"])
    BOOST_TEST(!rule.value("to", json::array()).empty(), "egress to anywhere: " << rule.dump());

  // The API server, outside the pod network: addresses, on both ports it listens on.
  auto api = rule_with_port(spec["egress"], 443);
  BOOST_TEST((ports_of(api) == std::set<long long>{443, 6443}));
  BOOST_TEST((cidrs_of(api["to"]) == std::set<std::string>{api_server_placeholder}));

  // The Portworx gateway, on the host network: the node CIDR, on the port of both the
  // built-in default endpoint and the one the shipped ConfigMap sets.
  auto gateway_port = port_of(schedopt::settings{}.portworx_endpoint);
  BOOST_TEST(gateway_port == port_of(configmap_endpoint()), "ConfigMap: " << configmap_endpoint());
  auto px = rule_with_port(spec["egress"], gateway_port);
  BOOST_TEST((ports_of(px) == std::set<long long>{gateway_port}));
  BOOST_TEST((cidrs_of(px["to"]) == std::set<std::string>{node_network_placeholder}));

  // DNS, to kube-dns only.
  auto dns = rule_with_port(spec["egress"], 53);
  BOOST_TEST(dns["to"].size() == 1u);
  BOOST_TEST(dns["to"][0]["podSelector"]["matchLabels"]["k8s-app"] == "kube-dns");
  BOOST_TEST(spec["egress"].size() == 3u);

  // Ingress: metrics from the monitoring namespace; the probe port open (the kubelet
  // connects from the node); nothing else.
  auto metrics = rule_with_port(spec["ingress"], 8443);
  BOOST_TEST((ports_of(metrics) == std::set<long long>{8443}));
  BOOST_REQUIRE(metrics["from"].size() == 1u);
  BOOST_TEST(metrics["from"][0]["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"] == "monitoring");
  BOOST_TEST(!metrics["from"][0].contains("ipBlock"));
  auto probes = rule_with_port(spec["ingress"], 8081);
  BOOST_TEST((ports_of(probes) == std::set<long long>{8081}));
  BOOST_TEST(spec["ingress"].size() == 2u);
}

BOOST_AUTO_TEST_CASE(the_cluster_addresses_component_fills_every_patch_point,
                     *utf::precondition(kubectl_present)) {
  scratch_dir tmp;
  auto overlay = overlay_with_component(tmp);
  auto want = replaced_values(overlay / "cluster-addresses" / "patch.yaml");
  BOOST_REQUIRE_EQUAL(want.size(), 3u);
  auto spec = schedopt_policy(render(overlay))["spec"];

  auto api = rule_with_port(spec["egress"], 443);
  BOOST_TEST(api["to"] == want["/spec/egress/0/to"]);
  BOOST_TEST(cidrs_of(api["to"]).count(api_server_placeholder) == 0u);
  auto px = rule_with_port(spec["egress"], port_of(schedopt::settings{}.portworx_endpoint));
  BOOST_TEST(px["to"] == want["/spec/egress/1/to"]);
  BOOST_TEST(cidrs_of(px["to"]).count(node_network_placeholder) == 0u);
  auto metrics = rule_with_port(spec["ingress"], 8443);
  auto scraper = want["/spec/ingress/0/from/0/namespaceSelector/matchLabels/kubernetes.io~1metadata.name"];
  BOOST_TEST(scraper != "monitoring");
  BOOST_TEST(metrics["from"][0]["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"] == scraper);
  // Ports and the rest of the policy are the shipped ones.
  BOOST_TEST((ports_of(api) == std::set<long long>{443, 6443}));
  BOOST_TEST(spec["egress"].size() == 3u);
  BOOST_TEST(spec["ingress"].size() == 2u);

  // A policy whose first egress rule is no longer the shipped API-server rule (moved or
  // changed) fails the patch's `test` operation: the render stops instead of rewriting
  // another rule.
  auto policy_file = fs::path(source_dir) / "deploy" / "network-policy" / "networkpolicy.yaml";
  auto reordered = tmp.path / "reordered";
  fs::create_directories(reordered);
  auto text = slurp(policy_file);
  auto at = text.find(api_server_placeholder);
  BOOST_REQUIRE(at != std::string::npos);
  text.replace(at, api_server_placeholder.size(), "203.0.113.0/24");
  std::ofstream(reordered / "networkpolicy.yaml") << text;
  fs::copy(overlay / "cluster-addresses", reordered / "cluster-addresses", fs::copy_options::recursive);
  std::ofstream(reordered / "kustomization.yaml")
    << "resources:\n  - networkpolicy.yaml\ncomponents:\n  - cluster-addresses\n";
  auto refused = run_shell("kubectl kustomize '" + reordered.string() + "'");
  BOOST_TEST(refused.first != 0);
  BOOST_TEST(refused.second.find("/spec/egress/0/to/0/ipBlock/cidr") != std::string::npos, refused.second);
}

BOOST_AUTO_TEST_SUITE_END()
