// Answer faults (sim/answer_faults.hpp): the rule table, the API server's
// /admin/answer-faults and broken answers on the wire, and the SDK gateway's.
#include <algorithm>

#include <boost/test/unit_test.hpp>

#include <httplib.h>

#include "kubevirt_test_fixture.hpp"
#include "sim/answer_faults.hpp"
#include "sim/portworx_gateway.hpp"
#include "wire_fixture.hpp"
#include "wire_http.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using nlohmann::json;

namespace {

answer_fault rule(const std::string& text) {
  auto r = answer_fault_from_json(json::parse(text));
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.err().message));
  return *r;
}

test::http_reply post_rule(const json& body) {
  return test::http_request(test::shared_sim(), "POST", "/admin/answer-faults", body.dump());
}

struct clear_rules_after {
  ~clear_rules_after() { test::http_request(test::shared_sim(), "DELETE", "/admin/answer-faults"); }
};

} // namespace

BOOST_AUTO_TEST_SUITE(answer_faults_table)

BOOST_AUTO_TEST_CASE(a_rule_breaks_only_its_count_of_matching_requests) {
  answer_faults table;
  table.add(rule(R"({"kind":"html","method":"GET","path":"/api/v1/nodes","count":2,"watch":false})"));
  BOOST_TEST(!table.take("api", "POST", "/api/v1/nodes", false));   // other method
  BOOST_TEST(!table.take("api", "GET", "/api/v1/pods", false));     // other path
  BOOST_TEST(!table.take("api", "GET", "/api/v1/nodes", true));     // a watch
  BOOST_TEST(!table.take("portworx", "GET", "/api/v1/nodes", false)); // other server
  BOOST_TEST(!table.take_rewrite("GET", "/api/v1/nodes"));
  BOOST_TEST(table.take("api", "GET", "/api/v1/nodes/node-01", false).has_value());
  BOOST_TEST(table.take("api", "GET", "/api/v1/nodes", false).has_value());
  BOOST_TEST(!table.take("api", "GET", "/api/v1/nodes", false)); // used up
  auto listed = table.list();
  BOOST_REQUIRE(listed.size() == 1u);
  BOOST_TEST(listed[0].fired == 2);
  BOOST_TEST(listed[0].remaining == 0);
}

BOOST_AUTO_TEST_CASE(unknown_replica_node_only_rewrites) {
  answer_faults table;
  table.add(rule(R"({"kind":"unknown-replica-node","server":"portworx","path":"/v1/volumes","node":"px-x"})"));
  BOOST_TEST(!table.take("portworx", "GET", "/v1/volumes/inspect/v1", false));
  auto taken = table.take_rewrite("GET", "/v1/volumes/inspect/v1");
  BOOST_REQUIRE(taken.has_value());
  BOOST_TEST(taken->node == "px-x");
}

BOOST_AUTO_TEST_CASE(reset_after_commit_fires_only_after_a_write) {
  answer_faults table;
  table.add(rule(R"({"kind":"reset-after-commit","method":"POST","path":"/api/v1/namespaces/default/events","count":2})"));
  BOOST_TEST(!table.take("api", "POST", "/api/v1/namespaces/default/events", false)); // never replaces
  BOOST_TEST(!table.take_after_commit("api", "PUT", "/api/v1/namespaces/default/events/e1"));
  BOOST_TEST(!table.take_after_commit("api", "POST", "/api/v1/namespaces/default/configmaps"));
  BOOST_TEST(!table.take_after_commit("portworx", "POST", "/api/v1/namespaces/default/events"));
  BOOST_TEST(table.take_after_commit("api", "POST", "/api/v1/namespaces/default/events").has_value());
  BOOST_TEST(table.take_after_commit("api", "POST", "/api/v1/namespaces/default/events").has_value());
  BOOST_TEST(!table.take_after_commit("api", "POST", "/api/v1/namespaces/default/events")); // used up
  BOOST_TEST(to_json(table.list().at(0)).value("kind", "") == "reset-after-commit");
  BOOST_TEST(table.list().at(0).fired == 2);
}

BOOST_AUTO_TEST_CASE(bad_rules_are_refused_with_the_reason) {
  auto msg = [](const std::string& text) {
    auto r = answer_fault_from_json(json::parse(text));
    return r ? std::string{"accepted"} : r.err().message;
  };
  BOOST_TEST(msg(R"({"kind":"nonsense","path":"/api"})") == "answer fault: unknown kind \"nonsense\"");
  BOOST_TEST(msg(R"({"kind":"html"})") == "answer fault: path must start with /");
  BOOST_TEST(msg(R"({"kind":"html","path":"/api","count":0})") == "answer fault: count must be at least 1");
  BOOST_TEST(msg(R"({"kind":"html","path":"/api","server":"etcd"})")
             == "answer fault: server must be \"api\" or \"portworx\"");
  BOOST_TEST(msg(R"({"kind":"html","path":"/api","watch":"yes"})").rfind("answer fault: ", 0) == 0u);
  BOOST_TEST(msg(R"([1])") == "answer fault: the body must be a JSON object");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(answer_faults_wire)

BOOST_AUTO_TEST_CASE(admin_endpoint_adds_lists_and_clears_rules) {
  auto& sim = test::shared_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  clear_rules_after cleanup;
  auto bad = post_rule({{"kind", "nonsense"}, {"path", "/api"}});
  BOOST_TEST(bad.status == 400);
  BOOST_TEST(bad.json().value("message", "") == "answer fault: unknown kind \"nonsense\"");
  auto added = post_rule({{"kind", "html"}, {"method", "GET"}, {"path", "/api/v1/nodes"}});
  BOOST_REQUIRE(added.status == 201);
  int id = added.json().value("id", 0);
  BOOST_TEST(id > 0);
  auto html = test::http_request(sim, "GET", "/api/v1/nodes");
  BOOST_TEST(html.status == 502);
  BOOST_TEST(html.has_header("text/html"));
  BOOST_TEST(html.body.find("<h1>502 Bad Gateway</h1>") != std::string::npos);
  auto normal = test::http_request(sim, "GET", "/api/v1/nodes");
  BOOST_TEST(normal.status == 200);
  BOOST_TEST(normal.json().value("kind", "") == "NodeList");
  auto rules = test::http_request(sim, "GET", "/admin/answer-faults").json()["rules"];
  BOOST_REQUIRE(rules.size() == 1u);
  BOOST_TEST(rules[0].value("fired", -1) == 1);
  BOOST_TEST(rules[0].value("remaining", -1) == 0);
  BOOST_TEST(test::http_request(sim, "DELETE", "/admin/answer-faults").status == 200);
  BOOST_TEST(test::http_request(sim, "GET", "/admin/answer-faults").json()["rules"].empty());
}

BOOST_AUTO_TEST_CASE(not_json_and_a_body_cut_mid_way) {
  auto& sim = test::shared_sim();
  BOOST_REQUIRE(sim.ok());
  clear_rules_after cleanup;
  BOOST_REQUIRE(post_rule({{"kind", "not-json"}, {"path", "/api/v1/namespaces"}}).status == 201);
  auto garbage = test::http_request(sim, "GET", "/api/v1/namespaces");
  BOOST_TEST(garbage.status == 200);
  BOOST_TEST(garbage.json().is_discarded());
  BOOST_REQUIRE(post_rule({{"kind", "close-mid-body"}, {"path", "/api/v1/namespaces"}}).status == 201);
  auto cut = test::http_request(sim, "GET", "/api/v1/namespaces");
  BOOST_TEST(cut.status == 0); // curl: transfer closed with outstanding read data
  BOOST_TEST(cut.body.rfind(R"({"kind":"List")", 0) == 0u);
  BOOST_TEST(cut.json().is_discarded());
  BOOST_TEST(test::http_request(sim, "GET", "/api/v1/namespaces").json().value("kind", "") == "NamespaceList");
}

// The write is stored and audited, and its answer never comes: curl gets no status line.
// A second POST of the same name then meets it (409 AlreadyExists), as on kube-apiserver.
BOOST_AUTO_TEST_CASE(a_reset_after_commit_stores_the_write_and_sends_no_answer) {
  auto& sim = test::shared_sim();
  BOOST_REQUIRE(sim.ok());
  clear_rules_after cleanup;
  const std::string path = "/api/v1/namespaces/default/configmaps";
  BOOST_REQUIRE(post_rule({{"kind", "reset-after-commit"}, {"method", "POST"}, {"path", path}}).status == 201);
  json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "reset-after-commit"}}},
             {"data", {{"k", "v"}}}};
  auto lost = test::http_request(sim, "POST", path, cm.dump());
  BOOST_TEST(lost.status == 0);
  BOOST_TEST(lost.headers.empty());
  auto stored = test::http_request(sim, "GET", path + "/reset-after-commit");
  BOOST_TEST(stored.status == 200);
  BOOST_TEST(stored.json().value("/data/k"_json_pointer, std::string()) == "v");
  auto replay = test::http_request(sim, "POST", path, cm.dump());
  BOOST_TEST(replay.status == 409);
  BOOST_TEST(replay.json().value("reason", "") == "AlreadyExists");
  int created = 0;
  for (auto& w : test::http_request(sim, "GET", "/admin/audit").json().value("writes", json::array()))
    if (w.value("resource", "") == "configmaps" && w.value("name", "") == "reset-after-commit"
        && w.value("verb", "") == "create" && w.value("code", 0) == 201)
      ++created;
  BOOST_TEST(created == 1);
  BOOST_TEST(test::http_request(sim, "DELETE", path + "/reset-after-commit").status == 200);
}

BOOST_AUTO_TEST_CASE(watch_events_cut_or_oversized) {
  auto& sim = test::shared_sim();
  BOOST_REQUIRE(sim.ok());
  clear_rules_after cleanup;
  // Only the watch is broken: the list on the same path answers normally.
  BOOST_REQUIRE(post_rule({{"kind", "truncated-watch-event"}, {"path", "/api/v1/namespaces"}, {"watch", true}})
                  .status == 201);
  BOOST_TEST(test::http_request(sim, "GET", "/api/v1/namespaces").status == 200);
  auto cut = test::http_request(sim, "GET", "/api/v1/namespaces?watch=1");
  BOOST_TEST(cut.status == 0); // the chunked stream ends without its last chunk
  BOOST_TEST(cut.body.rfind(R"({"type":"ADDED")", 0) == 0u);
  BOOST_TEST(cut.body.find('\n') == std::string::npos);
  const std::size_t bytes = 3 * 1024 * 1024;
  BOOST_REQUIRE(post_rule({{"kind", "oversized-watch-event"}, {"path", "/api/v1/namespaces"}, {"watch", true},
                           {"bytes", bytes}})
                  .status == 201);
  auto big = test::http_request(sim, "GET", "/api/v1/namespaces?watch=1");
  BOOST_TEST(big.status == 200);
  BOOST_TEST(big.body.size() >= bytes);
  BOOST_TEST(big.body.find('\n') == std::string::npos); // one line, never ended
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(answer_faults_gateway)

BOOST_AUTO_TEST_CASE(html_and_an_unknown_replica_node_from_the_sdk_gateway) {
  testing::populated_store w{[] {
    scenario_options o;
    o.nodes = 4;
    o.vmis = 4;
    o.seed = 3;
    o.driver = "portworx";
    return o;
  }()};
  auto faults = std::make_shared<answer_faults>();
  portworx_gateway gateway{w.storage};
  gateway.set_answer_faults(faults);
  auto port = gateway.start(0, "");
  BOOST_REQUIRE(port);
  httplib::Client client{"127.0.0.1", *port};
  faults->add(rule(R"({"kind":"html","server":"portworx","path":"/v1/nodes","status":503})"));
  auto html = client.Get("/v1/nodes");
  BOOST_REQUIRE(html);
  BOOST_TEST(html->status == 503);
  BOOST_TEST(html->get_header_value("Content-Type") == "text/html");
  BOOST_TEST(client.Get("/v1/nodes")->status == 200);

  auto ids = json::parse(client.Get("/v1/volumes")->body)["volume_ids"];
  BOOST_REQUIRE(!ids.empty());
  auto path = "/v1/volumes/inspect/" + ids[0].get<std::string>();
  faults->add(rule(R"({"kind":"unknown-replica-node","server":"portworx","path":"/v1/volumes/inspect/"})"));
  auto nodes_of = [&] {
    auto res = client.Get(path.c_str());
    BOOST_REQUIRE(res);
    BOOST_REQUIRE(res->status == 200);
    return json::parse(res->body)["volume"]["replica_sets"][0]["nodes"].get<std::vector<std::string>>();
  };
  auto rewritten = nodes_of();
  auto normal = nodes_of();
  BOOST_TEST(rewritten.size() == normal.size() + 1);
  BOOST_TEST(rewritten.back() == "px-node-unknown");
  BOOST_TEST(std::count(normal.begin(), normal.end(), "px-node-unknown") == 0);
  gateway.stop();
}

BOOST_AUTO_TEST_SUITE_END()
