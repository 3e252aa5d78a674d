// The OpenStorage SDK REST gateway over loopback HTTP: paths, snake_case shapes,
// grpc-gateway errors and the bearer token; over HTTPS with a CA of its own.
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <fstream>

#include <httplib.h>
#include <unistd.h>

#include "kubevirt_test_fixture.hpp"
#include "sim/portworx_gateway.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace schedopt::sim::testing;

namespace {

struct gateway_fixture {
  populated_store w{[] {
    scenario_options o;
    o.nodes = 5;
    o.vmis = 10;
    o.seed = 4;
    return o;
  }()};
  portworx_gateway gateway{w.storage};
  int port = 0;

  explicit gateway_fixture(const std::string& token = {}) {
    auto p = gateway.start(0, token);
    BOOST_REQUIRE(p);
    port = *p;
  }

  json get(const std::string& path, int expected_status, const std::string& token = {}) {
    httplib::Client client{"127.0.0.1", port};
    httplib::Headers headers;
    if (!token.empty())
      headers.emplace("Authorization", "Bearer " + token);
    auto res = client.Get(path.c_str(), headers);
    BOOST_REQUIRE(res);
    BOOST_CHECK_EQUAL(res->status, expected_status);
    BOOST_CHECK_EQUAL(res->get_header_value("Content-Type"), "application/json");
    return json::parse(res->body);
  }

  json post(const std::string& path, const std::string& body, int expected_status) {
    httplib::Client client{"127.0.0.1", port};
    auto res = client.Post(path.c_str(), body, "application/json");
    BOOST_REQUIRE(res);
    BOOST_CHECK_EQUAL(res->status, expected_status);
    BOOST_CHECK_EQUAL(res->get_header_value("Content-Type"), "application/json");
    return json::parse(res->body);
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(storage_gateway)

BOOST_AUTO_TEST_CASE(nodes_enumerate_and_inspect) {
  gateway_fixture f;
  auto ids = f.get("/v1/nodes", 200)["node_ids"];
  BOOST_REQUIRE_EQUAL(ids.size(), 5u);
  std::set<std::string> k8s_names;
  for (const auto& id : ids) {
    auto node = f.get("/v1/nodes/inspect/" + id.get<std::string>(), 200)["node"];
    BOOST_CHECK_EQUAL(node["id"], id);
    BOOST_CHECK_EQUAL(node["status"], "STATUS_OK");
    BOOST_CHECK_EQUAL(node["hostname"], node["scheduler_node_name"]);
    BOOST_CHECK(!node["mgmt_ip"].get<std::string>().empty());
    BOOST_CHECK_EQUAL(node["mgmt_ip"], node["data_ip"]);
    BOOST_CHECK(!node["pools"][0]["uuid"].get<std::string>().empty());
    auto k8s = f.w.store.get("nodes", "", node["scheduler_node_name"]);
    BOOST_REQUIRE(k8s);
    BOOST_CHECK_EQUAL((*k8s)["status"]["addresses"][0]["address"], node["mgmt_ip"]);
    k8s_names.insert(node["scheduler_node_name"].get<std::string>());
  }
  BOOST_CHECK_EQUAL(k8s_names.size(), 5u);
  BOOST_CHECK_EQUAL(f.get("/v1/nodes/filters", 200)["nodes"].size(), 5u);
  BOOST_CHECK(f.get("/v1/nodes/inspectcurrent", 200)["node"].contains("id"));
  auto missing = f.get("/v1/nodes/inspect/nope", 404);
  BOOST_CHECK_EQUAL(missing["code"], 5);
  BOOST_CHECK_EQUAL(missing["message"], "Id nope not found");
}

BOOST_AUTO_TEST_CASE(volume_inspect_reports_replica_nodes_by_portworx_id) {
  gateway_fixture f;
  int checked = 0;
  for (const auto& pv : f.w.store.list("persistentvolumes").items) {
    if (pv["spec"]["csi"]["driver"] != portworx_csi_driver)
      continue;
    auto handle = pv["spec"]["csi"]["volumeHandle"].get<std::string>();
    auto body = f.get("/v1/volumes/inspect/" + handle, 200);
    auto volume = body["volume"];
    BOOST_CHECK_EQUAL(volume["id"], handle);
    BOOST_CHECK_EQUAL(volume["locator"]["name"], pv["metadata"]["name"]);
    BOOST_CHECK_EQUAL(body["name"], pv["metadata"]["name"]);
    std::set<std::string> replica_names;
    for (const auto& px : volume["replica_sets"][0]["nodes"]) {
      auto n = f.w.storage.node_by_px_id(px);
      BOOST_REQUIRE(n);
      replica_names.insert(n->name);
    }
    auto vol = f.w.storage.volume(handle);
    BOOST_REQUIRE(vol);
    BOOST_CHECK(replica_names == std::set<std::string>(vol->replica_nodes.begin(), vol->replica_nodes.end()));
    BOOST_CHECK_EQUAL(volume["spec"]["ha_level"], std::to_string(vol->replica_nodes.size()));
    ++checked;
  }
  BOOST_CHECK_EQUAL(checked, 20);
  BOOST_CHECK_EQUAL(f.get("/v1/volumes", 200)["volume_ids"].size(), 20u);
  auto missing = f.get("/v1/volumes/inspect/12345", 404);
  BOOST_CHECK_EQUAL(missing["code"], 5);
  BOOST_CHECK_EQUAL(missing["error"], "Volume id 12345 not found");
  BOOST_CHECK_EQUAL(missing["message"], "Volume id 12345 not found");
}

BOOST_AUTO_TEST_CASE(inspect_with_filters_answers_every_volume_in_one_call) {
  gateway_fixture f;
  auto all = f.post("/v1/volumes/inspectwithfilters", "{}", 200);
  BOOST_REQUIRE_EQUAL(all["volumes"].size(), 20u);
  for (const auto& item : all["volumes"]) {
    auto volume = item["volume"];
    auto id = volume["id"].get<std::string>();
    // The same SdkVolumeInspectResponse as the per-volume inspect answers.
    BOOST_CHECK_EQUAL(item, f.get("/v1/volumes/inspect/" + id, 200));
    BOOST_CHECK_EQUAL(item["name"], volume["locator"]["name"]);
    BOOST_CHECK(!volume["replica_sets"][0]["nodes"].empty());
  }
  // An empty body is an empty filter too (curl -X POST without -d).
  BOOST_CHECK_EQUAL(f.post("/v1/volumes/inspectwithfilters", "", 200)["volumes"].size(), 20u);

  auto first = all["volumes"][0];
  json by_labels = {{"labels", first["labels"]}};
  auto one = f.post("/v1/volumes/inspectwithfilters", by_labels.dump(), 200);
  BOOST_REQUIRE_EQUAL(one["volumes"].size(), 1u);
  BOOST_CHECK_EQUAL(one["volumes"][0]["volume"]["id"], first["volume"]["id"]);
  json by_name = {{"name", first["name"]}};
  BOOST_CHECK_EQUAL(f.post("/v1/volumes/inspectwithfilters", by_name.dump(), 200)["volumes"].size(), 1u);
  json by_namespace = {{"labels", {{"namespace", first["labels"]["namespace"]}}}};
  BOOST_CHECK_GE(f.post("/v1/volumes/inspectwithfilters", by_namespace.dump(), 200)["volumes"].size(), 1u);

  // No match: grpc-gateway omits the empty repeated field.
  BOOST_CHECK_EQUAL(f.post("/v1/volumes/inspectwithfilters", R"({"labels":{"pvc":"nope"}})", 200),
                    json::object());
  BOOST_CHECK_EQUAL(f.post("/v1/volumes/inspectwithfilters",
                           R"({"ownership":{"owner":"support@mycompany.com"}})", 200),
                    json::object());
  auto bad = f.post("/v1/volumes/inspectwithfilters", "[1,", 400);
  BOOST_CHECK_EQUAL(bad["code"], 3);
  // Only POST is routed, as in api.proto.
  BOOST_CHECK_EQUAL(f.get("/v1/volumes/inspectwithfilters", 404)["code"], 5);
}

BOOST_AUTO_TEST_CASE(answers_are_plain_json_even_when_the_client_offers_compression) {
  // grpc-gateway does not compress; httplib would brotli a large answer for seconds.
  gateway_fixture f;
  httplib::Client client{"127.0.0.1", f.port};
  httplib::Headers offer{{"Accept-Encoding", "deflate, gzip, br, zstd"}};
  auto res = client.Post("/v1/volumes/inspectwithfilters", offer, "{}", "application/json");
  BOOST_REQUIRE(res);
  BOOST_CHECK_EQUAL(res->status, 200);
  BOOST_CHECK(!res->has_header("Content-Encoding"));
  BOOST_CHECK_EQUAL(json::parse(res->body)["volumes"].size(), 20u);
  auto nodes = client.Get("/v1/nodes/filters", offer);
  BOOST_REQUIRE(nodes);
  BOOST_CHECK(!nodes->has_header("Content-Encoding"));
}

BOOST_AUTO_TEST_CASE(token_is_required_when_set) {
  gateway_fixture f{"s3cret"};
  auto denied = f.get("/v1/nodes", 401);
  BOOST_CHECK_EQUAL(denied["code"], 16);
  f.get("/v1/nodes", 401, "wrong");
  BOOST_CHECK_EQUAL(f.get("/v1/nodes", 200, "s3cret")["node_ids"].size(), 5u);
}

// As Portworx with TLS on: HTTPS on the same gateway, verified against the gateway's own
// CA (not the API server's), and the token still required.
BOOST_AUTO_TEST_CASE(https_with_its_own_ca_and_the_token) {
  populated_store w{[] {
    scenario_options o;
    o.nodes = 3;
    o.vmis = 3;
    o.seed = 4;
    return o;
  }()};
  auto tls = make_tls_material("schedopt-sim-portworx-ca");
  BOOST_REQUIRE(tls);
  auto other = make_tls_material();
  BOOST_REQUIRE(other);
  portworx_gateway gateway{w.storage};
  auto port = gateway.start(0, "s3cret", *tls);
  BOOST_REQUIRE(port);
  BOOST_CHECK_EQUAL(gateway.url(), "https://127.0.0.1:" + std::to_string(*port));
  auto ca_file = [](const std::string& name, const std::string& pem) {
    auto path = "/tmp/schedopt-gateway-test-" + std::to_string(::getpid()) + "-" + name;
    std::ofstream(path) << pem;
    return path;
  };
  auto right = ca_file("ca.pem", tls->ca_cert_pem);
  auto wrong = ca_file("other-ca.pem", other->ca_cert_pem);

  httplib::SSLClient client{"127.0.0.1", *port};
  client.set_ca_cert_path(right.c_str());
  client.enable_server_certificate_verification(true);
  auto denied = client.Get("/v1/nodes");
  BOOST_REQUIRE(denied);
  BOOST_CHECK_EQUAL(denied->status, 401);
  auto nodes = client.Get("/v1/nodes", {{"Authorization", "Bearer s3cret"}});
  BOOST_REQUIRE(nodes);
  BOOST_CHECK_EQUAL(nodes->status, 200);
  BOOST_CHECK_EQUAL(json::parse(nodes->body)["node_ids"].size(), 3u);

  httplib::SSLClient untrusting{"127.0.0.1", *port};
  untrusting.set_ca_cert_path(wrong.c_str());
  untrusting.enable_server_certificate_verification(true);
  auto refused = untrusting.Get("/v1/nodes", {{"Authorization", "Bearer s3cret"}});
  BOOST_CHECK(!refused); // the handshake fails: no answer at all
  BOOST_CHECK(refused.error() == httplib::Error::SSLServerVerification);

  httplib::Client plain{"127.0.0.1", *port};
  BOOST_CHECK(!plain.Get("/v1/nodes")); // no plain HTTP on the TLS port
  gateway.stop();
  std::remove(right.c_str());
  std::remove(wrong.c_str());
}

BOOST_AUTO_TEST_SUITE_END()
