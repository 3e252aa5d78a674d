// portworx storage driver against a scripted SDK gateway on 127.0.0.1: transient
// answers (5xx, 429, refused connections) are retried with backoff, a 4xx fails at once,
// a 404 is a per-volume error.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include <stdlib.h>

#include <httplib.h>

#include "actor_fixture.hpp"
#include "k8s/listen_thread.hpp"
#include "actors/drivers/storage_drivers.hpp"

using namespace schedopt;
using namespace schedopt::test;
using namespace std::chrono_literals;

namespace {

struct canned {
  int status = 200;
  std::string body;
  std::string retry_after;
};

/// A tiny SDK gateway: per path, scripted answers first, then a default one; counts hits.
struct gateway {
  gateway() {
    auto respond = [this](const httplib::Request& req, httplib::Response& res) {
      canned a;
      {
        std::lock_guard<std::mutex> guard{mutex};
        ++hits[req.path];
        bodies[req.path] = req.body;
        auto& script = scripted[req.path];
        if (!script.empty()) {
          a = script.front();
          script.pop_front();
        } else if (auto d = defaults.find(req.path); d != defaults.end()) {
          a = d->second;
        } else {
          a = {404, R"({"error":"not found","code":5})", ""};
        }
      }
      res.status = a.status;
      if (!a.retry_after.empty())
        res.set_header("Retry-After", a.retry_after);
      res.set_content(a.body, "application/json");
    };
    server.Get(".*", respond);
    server.Post(".*", respond);
    // One request per connection: an idle keep-alive connection would hold stop() for
    // httplib's 5 s keep-alive timeout.
    server.set_keep_alive_max_count(1);
    port = server.bind_to_any_port("127.0.0.1");
    thread = start_listening(server);
    while (!server.is_running())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  ~gateway() {
    server.stop();
    thread.join();
  }

  void answer(const std::string& path, canned a) {
    std::lock_guard<std::mutex> guard{mutex};
    defaults[path] = std::move(a);
  }
  void script(const std::string& path, canned a) {
    std::lock_guard<std::mutex> guard{mutex};
    scripted[path].push_back(std::move(a));
  }
  int hits_of(const std::string& path) {
    std::lock_guard<std::mutex> guard{mutex};
    return hits[path];
  }
  int total_hits() {
    std::lock_guard<std::mutex> guard{mutex};
    int total = 0;
    for (auto& [path, n] : hits)
      total += n;
    return total;
  }
  std::string body_of(const std::string& path) {
    std::lock_guard<std::mutex> guard{mutex};
    return bodies[path];
  }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port); }

  httplib::Server server;
  int port = 0;
  std::thread thread;
  std::mutex mutex;
  std::map<std::string, int> hits;
  std::map<std::string, std::string> bodies; // the last request body per path
  std::map<std::string, std::deque<canned>> scripted;
  std::map<std::string, canned> defaults;
};

const canned one_node{200, R"({"node_ids":["px1"]})", ""};
const canned px1{200, R"({"node":{"id":"px1","scheduler_node_name":"n1"}})", ""};
const canned vol_a{200, R"({"volume":{"id":"vol-a","replica_sets":[{"nodes":["px1"]}]}})", ""};
const canned unavailable{503, R"({"error":"try later","code":14})", ""};

/// An old gateway (no bulk calls) of one node, px1 = n1, that knows volume vol-a.
void serve_px1_and_vol_a(gateway& gw) {
  gw.answer("/v1/nodes", one_node);
  gw.answer("/v1/nodes/inspect/px1", px1);
  gw.answer("/v1/volumes/inspect/vol-a", vol_a);
}

replica_query query_for(std::vector<std::string> handles) {
  replica_query q;
  for (auto& h : handles) {
    persistent_volume v;
    v.metadata.name = "pv-" + h;
    v.csi_driver = "pxd.portworx.com";
    v.volume_handle = h;
    q.volumes.push_back(std::make_shared<const persistent_volume>(v));
  }
  node n;
  n.metadata.name = "n1";
  q.nodes.push_back(n);
  return q;
}

struct portworx_fixture : actor_fixture {
  storage_driver_actor spawn_driver(const std::string& endpoint) {
    auto entry = find_storage_driver("portworx");
    BOOST_REQUIRE(entry);
    settings cfg;
    cfg.portworx_endpoint = endpoint;
    auto spawned = entry->spawn(sys, cfg);
    BOOST_REQUIRE(spawned);
    return track(*spawned);
  }

  /// Runs actors and the test clock (in 50 ms steps) while real HTTP happens on the
  /// engine's thread, until `done` or 10 s of real time.
  template <class Pred>
  bool run_until(Pred done) {
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline)
        return false;
      sched.run();
      sched.advance_time(50ms);
      sched.run();
      std::this_thread::sleep_for(2ms);
    }
    return true;
  }

  /// Runs actors without moving the test clock, giving the gateway real time to answer.
  void settle(std::chrono::milliseconds real) {
    auto until = std::chrono::steady_clock::now() + real;
    while (std::chrono::steady_clock::now() < until) {
      sched.run();
      std::this_thread::sleep_for(2ms);
    }
  }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(portworx_driver, portworx_fixture)

BOOST_AUTO_TEST_CASE(transient_503s_are_retried_until_the_gateway_answers) {
  gateway gw;
  gw.script("/v1/nodes", unavailable);
  gw.script("/v1/nodes", unavailable);
  serve_px1_and_vol_a(gw);
  auto aut = spawn_driver(gw.endpoint());
  auto answer = ask<replica_answer>(sys, aut, query_for({"vol-a"}));
  BOOST_REQUIRE(run_until([&] { return answer->arrived(); }));
  BOOST_REQUIRE_MESSAGE(answer->value, "driver failed: " << error_message(*answer->error));
  BOOST_CHECK_EQUAL(gw.hits_of("/v1/nodes"), 3);
  BOOST_CHECK_EQUAL(gw.hits_of("/v1/nodes/inspect/px1"), 1);
  auto& r = answer->value->replicas;
  BOOST_REQUIRE_EQUAL(r.size(), 1u);
  BOOST_CHECK_EQUAL(r.count("pv-vol-a"), 1u);
  BOOST_CHECK((r.at("pv-vol-a") == replica_nodes{"n1"}));
}

BOOST_AUTO_TEST_CASE(a_400_fails_the_run_at_once) {
  gateway gw;
  gw.answer("/v1/nodes", {400, R"({"error":"bad request","code":3})", ""});
  auto aut = spawn_driver(gw.endpoint());
  auto answer = ask<replica_answer>(sys, aut, query_for({"vol-a"}));
  BOOST_REQUIRE(run_until([&] { return answer->arrived(); }));
  BOOST_REQUIRE(answer->error);
  auto message = error_message(*answer->error);
  BOOST_CHECK_NE(message.find("driver failure: portworx: enumerate nodes: HTTP 400: bad request"),
                 std::string::npos);
  // Let any (wrong) retry timer fire before counting.
  run_until([&, start = std::chrono::steady_clock::now()] {
    return std::chrono::steady_clock::now() - start > 300ms;
  });
  BOOST_CHECK_EQUAL(gw.hits_of("/v1/nodes"), 1);
}

BOOST_AUTO_TEST_CASE(a_404_volume_is_a_per_volume_error_not_retried) {
  gateway gw;
  serve_px1_and_vol_a(gw);
  auto aut = spawn_driver(gw.endpoint());
  auto answer = ask<replica_answer>(sys, aut, query_for({"vol-a", "gone"}));
  BOOST_REQUIRE(run_until([&] { return answer->arrived(); }));
  BOOST_REQUIRE(answer->value);
  BOOST_CHECK_EQUAL(answer->value->replicas.size(), 1u);
  BOOST_REQUIRE_EQUAL(answer->value->errors.size(), 1u);
  BOOST_CHECK_EQUAL(answer->value->errors[0].first, "pv-gone");
  BOOST_CHECK_EQUAL(gw.hits_of("/v1/volumes/inspect/gone"), 1);
}

// Asked by position (as the controller asks), the answer has one entry per queried PV in
// the query's order, a missing volume's empty beside its error, and no named entries.
BOOST_AUTO_TEST_CASE(a_query_by_position_is_answered_in_its_order) {
  gateway gw;
  serve_px1_and_vol_a(gw);
  auto aut = spawn_driver(gw.endpoint());
  auto q = query_for({"gone", "vol-a"});
  q.by_position = true;
  auto answer = ask<replica_answer>(sys, aut, q);
  BOOST_REQUIRE(run_until([&] { return answer->arrived(); }));
  BOOST_REQUIRE_MESSAGE(answer->value, "driver failed: " << error_message(*answer->error));
  BOOST_CHECK(answer->value->replicas.empty());
  BOOST_REQUIRE_EQUAL(answer->value->by_position.size(), 2u);
  BOOST_CHECK(answer->value->by_position[0].empty());
  BOOST_CHECK((answer->value->by_position[1] == replica_nodes{"n1"}));
  BOOST_REQUIRE_EQUAL(answer->value->errors.size(), 1u);
  BOOST_CHECK_EQUAL(answer->value->errors[0].first, "pv-gone");
}

BOOST_AUTO_TEST_CASE(a_429_waits_for_the_gateways_retry_after) {
  gateway gw;
  gw.answer("/v1/nodes", one_node);
  gw.answer("/v1/nodes/inspect/px1", px1);
  gw.script("/v1/volumes/inspect/vol-a", {429, R"({"error":"slow down"})", "2"});
  gw.answer("/v1/volumes/inspect/vol-a", vol_a);
  auto aut = spawn_driver(gw.endpoint());
  auto answer = ask<replica_answer>(sys, aut, query_for({"vol-a"}));
  BOOST_REQUIRE(run_until([&] { return gw.hits_of("/v1/volumes/inspect/vol-a") == 1; }));
  settle(200ms); // the 429 reaches the driver, which arms its 2 s timer
  sched.advance_time(1900ms);
  settle(300ms);
  BOOST_CHECK_EQUAL(gw.hits_of("/v1/volumes/inspect/vol-a"), 1); // not before Retry-After
  BOOST_REQUIRE(run_until([&] { return answer->arrived(); }));
  BOOST_REQUIRE(answer->value);
  BOOST_CHECK_EQUAL(gw.hits_of("/v1/volumes/inspect/vol-a"), 2);
  BOOST_CHECK_EQUAL(answer->value->replicas.size(), 1u);
}

BOOST_AUTO_TEST_CASE(persistent_5xx_fails_after_the_attempts_are_spent) {
  gateway gw;
  gw.answer("/v1/nodes", unavailable);
  auto aut = spawn_driver(gw.endpoint());
  auto answer = ask<replica_answer>(sys, aut, query_for({"vol-a"}));
  BOOST_REQUIRE(run_until([&] { return answer->arrived(); }));
  BOOST_REQUIRE(answer->error);
  auto message = error_message(*answer->error);
  BOOST_CHECK_NE(message.find("HTTP 503"), std::string::npos);
  BOOST_CHECK_NE(message.find("gave up after 5 attempts"), std::string::npos);
  BOOST_CHECK_EQUAL(gw.hits_of("/v1/nodes"), 5);
}

BOOST_AUTO_TEST_CASE(refused_connections_are_retried_as_transport_errors) {
  int port = 0;
  {
    gateway closed; // take a free port, then close it again
    port = closed.port;
  }
  auto aut = spawn_driver("http://127.0.0.1:" + std::to_string(port));
  auto answer = ask<replica_answer>(sys, aut, query_for({"vol-a"}));
  BOOST_REQUIRE(run_until([&] { return answer->arrived(); }));
  BOOST_REQUIRE(answer->error);
  BOOST_CHECK_NE(error_message(*answer->error).find("gave up after 5 attempts"),
                 std::string::npos);
}

// N volumes on two nodes, the second found by its InternalIP rather than its name.
struct bulk_cluster {
  static constexpr int volumes = 40;
  replica_query query;
  canned nodes_filters{200, R"({"nodes":[{"id":"px1","scheduler_node_name":"n1"},)"
                            R"({"id":"px2","mgmt_ip":"10.0.0.2"}]})", ""};
  canned inspect_all;

  bulk_cluster() {
    std::string body = R"({"volumes":[)";
    for (int i = 0; i < volumes; ++i) {
      auto id = std::to_string(1000 + i);
      persistent_volume v;
      v.metadata.name = "pv-" + id;
      v.csi_driver = "pxd.portworx.com";
      v.volume_handle = id;
      query.volumes.push_back(std::make_shared<const persistent_volume>(v));
      body += R"({"volume":{"id":")" + id + R"(","locator":{"name":"pv-)" + id
              + R"("},"replica_sets":[{"nodes":[")" + (i % 2 ? "px2" : "px1")
              + R"("]}]},"name":"pv-)" + id + R"("},)";
    }
    // A volume nobody asked about, as every volume of the cluster comes back.
    body += R"({"volume":{"id":"9999","replica_sets":[{"nodes":["px1"]}]},"name":"other"}]})";
    inspect_all = {200, body, ""};
    node n1, n2;
    n1.metadata.name = "n1";
    n2.metadata.name = "n2";
    n2.addresses.push_back({"InternalIP", "10.0.0.2"});
    query.nodes = {n1, n2};
  }
};

BOOST_AUTO_TEST_CASE(one_inspectwithfilters_and_one_enumerate_answer_every_volume) {
  gateway gw;
  bulk_cluster c;
  gw.answer("/v1/nodes/filters", c.nodes_filters);
  gw.answer("/v1/volumes/inspectwithfilters", c.inspect_all);
  auto aut = spawn_driver(gw.endpoint());
  auto q = c.query;
  persistent_volume gone;
  gone.metadata.name = "pv-gone";
  gone.csi_driver = "pxd.portworx.com";
  gone.volume_handle = "4242";
  q.volumes.push_back(std::make_shared<const persistent_volume>(gone));
  auto answer = ask<replica_answer>(sys, aut, q);
  BOOST_REQUIRE(run_until([&] { return answer->arrived(); }));
  BOOST_REQUIRE_MESSAGE(answer->value, "driver failed: " << error_message(*answer->error));
  BOOST_CHECK_EQUAL(gw.hits_of("/v1/volumes/inspectwithfilters"), 1);
  BOOST_CHECK_EQUAL(gw.hits_of("/v1/nodes/filters"), 1);
  BOOST_CHECK_EQUAL(gw.total_hits(), 2); // no per-volume or per-node call
  BOOST_CHECK_EQUAL(gw.body_of("/v1/volumes/inspectwithfilters"), "{}");
  auto& r = answer->value->replicas;
  BOOST_REQUIRE_EQUAL(r.size(), std::size_t{bulk_cluster::volumes});
  std::map<std::string, replica_nodes> by_pv(r.begin(), r.end());
  BOOST_CHECK((by_pv["pv-1000"] == replica_nodes{"n1"}));
  BOOST_CHECK((by_pv["pv-1001"] == replica_nodes{"n2"}));
  BOOST_CHECK_EQUAL(by_pv.count("other"), 0u);
  BOOST_REQUIRE_EQUAL(answer->value->errors.size(), 1u);
  BOOST_CHECK_EQUAL(answer->value->errors[0].first, "pv-gone");
  BOOST_CHECK_EQUAL(answer->value->errors[0].second, "portworx volume \"4242\" not found");
}

BOOST_AUTO_TEST_CASE(an_old_gateways_404_falls_back_to_per_volume_inspect) {
  gateway gw; // inspectwithfilters and nodes/filters unrouted: 404 as grpc-gateway answers
  bulk_cluster c;
  gw.answer("/v1/nodes", {200, R"({"node_ids":["px1","px2"]})", ""});
  gw.answer("/v1/nodes/inspect/px1", px1);
  gw.answer("/v1/nodes/inspect/px2", {200, R"({"node":{"id":"px2","mgmt_ip":"10.0.0.2"}})", ""});
  for (int i = 0; i < bulk_cluster::volumes; ++i) {
    auto id = std::to_string(1000 + i);
    gw.answer("/v1/volumes/inspect/" + id,
              {200, R"({"volume":{"id":")" + id + R"(","replica_sets":[{"nodes":[")"
                      + (i % 2 ? "px2" : "px1") + R"("]}]}})", ""});
  }
  auto aut = spawn_driver(gw.endpoint());
  for (int run = 1; run <= 2; ++run) {
    auto answer = ask<replica_answer>(sys, aut, c.query);
    BOOST_REQUIRE(run_until([&] { return answer->arrived(); }));
    BOOST_REQUIRE_MESSAGE(answer->value, "driver failed: " << error_message(*answer->error));
    auto& r = answer->value->replicas;
    BOOST_REQUIRE_EQUAL(r.size(), std::size_t{bulk_cluster::volumes});
    std::map<std::string, replica_nodes> by_pv(r.begin(), r.end());
    BOOST_CHECK((by_pv["pv-1001"] == replica_nodes{"n2"}));
    BOOST_CHECK(answer->value->errors.empty());
    // The gateway is asked about bulk calls once, then per volume every run.
    BOOST_CHECK_EQUAL(gw.hits_of("/v1/volumes/inspectwithfilters"), 1);
    BOOST_CHECK_EQUAL(gw.hits_of("/v1/nodes/filters"), 1);
    BOOST_CHECK_EQUAL(gw.hits_of("/v1/nodes"), run);
    BOOST_CHECK_EQUAL(gw.hits_of("/v1/volumes/inspect/1000"), run);
    BOOST_CHECK_EQUAL(gw.hits_of("/v1/volumes/inspect/1039"), run);
  }
}

BOOST_AUTO_TEST_CASE(a_501_falls_back_too_but_a_503_is_retried) {
  gateway gw;
  bulk_cluster c;
  gw.script("/v1/nodes/filters", unavailable);
  gw.answer("/v1/nodes/filters", c.nodes_filters);
  gw.answer("/v1/volumes/inspectwithfilters",
            {501, R"({"error":"Method not implemented","code":12})", ""});
  for (int i = 0; i < bulk_cluster::volumes; ++i) {
    auto id = std::to_string(1000 + i);
    gw.answer("/v1/volumes/inspect/" + id,
              {200, R"({"volume":{"id":")" + id + R"(","replica_sets":[{"nodes":["px1"]}]}})", ""});
  }
  auto aut = spawn_driver(gw.endpoint());
  auto answer = ask<replica_answer>(sys, aut, c.query);
  BOOST_REQUIRE(run_until([&] { return answer->arrived(); }));
  BOOST_REQUIRE_MESSAGE(answer->value, "driver failed: " << error_message(*answer->error));
  BOOST_CHECK_EQUAL(answer->value->replicas.size(), std::size_t{bulk_cluster::volumes});
  BOOST_CHECK_EQUAL(gw.hits_of("/v1/nodes/filters"), 2); // 503, then the nodes
  BOOST_CHECK_EQUAL(gw.hits_of("/v1/nodes"), 0);
  BOOST_CHECK_EQUAL(gw.hits_of("/v1/volumes/inspectwithfilters"), 1);
  BOOST_CHECK_EQUAL(gw.hits_of("/v1/volumes/inspect/1000"), 1);
}

BOOST_AUTO_TEST_CASE(a_bulk_answer_that_does_not_decode_fails_the_run) {
  gateway gw;
  bulk_cluster c;
  gw.answer("/v1/nodes/filters", c.nodes_filters);
  gw.answer("/v1/volumes/inspectwithfilters", {200, R"({"volumes":[{"name":"x"}]})", ""});
  auto aut = spawn_driver(gw.endpoint());
  auto answer = ask<replica_answer>(sys, aut, c.query);
  BOOST_REQUIRE(run_until([&] { return answer->arrived(); }));
  BOOST_REQUIRE(answer->error);
  BOOST_CHECK_EQUAL(error_message(*answer->error),
                    "driver failure: portworx: inspect volumes: volumes[0].volume: is required");
}

// -- Portworx as deployed: an https:// SDK endpoint and a token from a mounted Secret --

namespace {

/// Runs `command` in a shell; true when it exited 0.
bool sh(const std::string& command) { return std::system((command + " >/dev/null 2>&1").c_str()) == 0; }

/// A throwaway PKI in a temporary directory (openssl CLI): ca.pem signs server.pem for
/// IP:127.0.0.1; other-ca.pem is a CA that signed nothing here.
struct test_pki {
  test_pki() {
    char tmpl[] = "/tmp/schedopt-px-tls-XXXXXX";
    dir = mkdtemp(tmpl);
    auto d = dir + "/";
    ok = sh("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 "
            "-subj /CN=px-test-ca -keyout " + d + "ca.key -out " + d + "ca.pem")
         && sh("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 "
               "-subj /CN=other-ca -keyout " + d + "other-ca.key -out " + d + "other-ca.pem")
         && sh("openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 "
               "-keyout " + d + "server.key -out " + d + "server.csr")
         && sh("printf 'subjectAltName=IP:127.0.0.1\\nbasicConstraints=CA:FALSE\\n' > " + d + "ext.cnf")
         && sh("openssl x509 -req -in " + d + "server.csr -CA " + d + "ca.pem -CAkey " + d
               + "ca.key -CAcreateserial -days 1 -extfile " + d + "ext.cnf -out " + d + "server.pem");
  }
  ~test_pki() { sh("rm -rf " + dir); }
  std::string path(const std::string& name) const { return dir + "/" + name; }
  std::string dir;
  bool ok = false;
};

/// An https SDK gateway knowing one node; records each call's Authorization header.
struct tls_gateway {
  explicit tls_gateway(const test_pki& pki)
      : server(pki.path("server.pem").c_str(), pki.path("server.key").c_str()) {
    server.Get("/v1/nodes/filters", [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard<std::mutex> guard{mutex};
        authorizations.push_back(req.get_header_value("Authorization"));
      }
      res.set_content(R"({"nodes":[{"id":"px1","scheduler_node_name":"n1"}]})", "application/json");
    });
    server.set_keep_alive_max_count(1);
    port = server.bind_to_any_port("127.0.0.1");
    thread = start_listening(server);
    while (!server.is_running())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~tls_gateway() {
    server.stop();
    thread.join();
  }
  std::string endpoint() const { return "https://127.0.0.1:" + std::to_string(port); }
  std::vector<std::string> seen() {
    std::lock_guard<std::mutex> guard{mutex};
    return authorizations;
  }

  httplib::SSLServer server;
  int port = 0;
  std::thread thread;
  std::mutex mutex;
  std::vector<std::string> authorizations;
};

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

} // namespace

BOOST_AUTO_TEST_CASE(an_https_gateway_is_verified_against_portworx_ca_file) {
  test_pki pki;
  BOOST_REQUIRE_MESSAGE(pki.ok, "openssl could not make the test certificates");
  tls_gateway gw(pki);
  auto entry = find_storage_driver("portworx");
  BOOST_REQUIRE(entry);
  settings cfg;
  cfg.portworx_endpoint = gw.endpoint();
  cfg.portworx_ca_file = pki.path("ca.pem");
  auto good = entry->spawn(sys, cfg);
  BOOST_REQUIRE(good);
  track(*good);
  auto answer = ask<replica_answer>(sys, *good, query_for({}));
  BOOST_REQUIRE(run_until([&] { return answer->arrived(); }));
  BOOST_REQUIRE_MESSAGE(answer->value, "driver failed: " << error_message(*answer->error));
  BOOST_CHECK_EQUAL(gw.seen().size(), 1u);

  // A CA that did not sign the gateway's certificate: refused at once (not retried),
  // and the error names the endpoint and the CA file.
  cfg.portworx_ca_file = pki.path("other-ca.pem");
  auto wrong = entry->spawn(sys, cfg);
  BOOST_REQUIRE(wrong);
  track(*wrong);
  auto refused = ask<replica_answer>(sys, *wrong, query_for({}));
  BOOST_REQUIRE(run_until([&] { return refused->arrived(); }));
  BOOST_REQUIRE(refused->error);
  auto message = error_message(*refused->error);
  BOOST_TEST(message.find("driver failure: portworx: enumerate nodes: TLS verification of "
                          + gw.endpoint() + " failed: ") != std::string::npos, message);
  BOOST_TEST(message.find("verified against portworxCaFile " + pki.path("other-ca.pem"))
               != std::string::npos, message);
  BOOST_TEST(message.find("gave up after") == std::string::npos, message);
  BOOST_CHECK_EQUAL(gw.seen().size(), 1u); // the handshake failed before any request

  // Without a CA file the system CAs do not know the test CA either; the error says
  // which setting to use.
  cfg.portworx_ca_file.clear();
  auto system = entry->spawn(sys, cfg);
  BOOST_REQUIRE(system);
  track(*system);
  auto unknown = ask<replica_answer>(sys, *system, query_for({}));
  BOOST_REQUIRE(run_until([&] { return unknown->arrived(); }));
  BOOST_REQUIRE(unknown->error);
  BOOST_TEST(error_message(*unknown->error).find("set portworxCaFile (--portworx-ca-file)")
               != std::string::npos, error_message(*unknown->error));

  // A CA file that cannot be read is a configuration error at start.
  cfg.portworx_ca_file = pki.path("missing.pem");
  auto missing = entry->spawn(sys, cfg);
  BOOST_REQUIRE(!missing);
  BOOST_TEST(error_message(missing.error()).find("portworxCaFile \"" + pki.path("missing.pem")
                                                 + "\": cannot be read") != std::string::npos);
}

// Settings refuse a token over plain http:// before a driver exists; the driver refuses
// it again, so no other way of building settings can send the token in clear text.
BOOST_AUTO_TEST_CASE(a_token_over_plain_http_is_refused_at_spawn) {
  auto entry = find_storage_driver("portworx");
  BOOST_REQUIRE(entry);
  settings cfg;
  cfg.portworx_endpoint = "http://127.0.0.1:9021";
  cfg.portworx_token_file = "/var/run/secrets/portworx/token";
  auto refused = entry->spawn(sys, cfg);
  BOOST_REQUIRE(!refused);
  BOOST_CHECK_EQUAL(error_message(refused.error()),
                    "portworxTokenFile is set but portworxEndpoint \"http://127.0.0.1:9021\" is "
                    "plain http://: the token is only sent over https://");
  cfg.portworx_token_file.clear(); // PX-Security off: plain http stays allowed
  auto plain = entry->spawn(sys, cfg);
  BOOST_REQUIRE(plain);
  track(*plain);
}

// The token comes from a mounted Secret's file, read again for each call: a rotated
// Secret changes the Authorization header without a restart.
BOOST_AUTO_TEST_CASE(the_token_file_is_re_read_after_it_changes) {
  test_pki pki;
  BOOST_REQUIRE_MESSAGE(pki.ok, "openssl could not make the test certificates");
  tls_gateway gw(pki);
  auto token_file = pki.path("token");
  write_text(token_file, "first-token\n");
  auto entry = find_storage_driver("portworx");
  BOOST_REQUIRE(entry);
  settings cfg;
  cfg.portworx_endpoint = gw.endpoint();
  cfg.portworx_ca_file = pki.path("ca.pem");
  cfg.portworx_token_file = token_file;
  auto spawned = entry->spawn(sys, cfg);
  BOOST_REQUIRE(spawned);
  auto aut = track(*spawned);
  auto first = ask<replica_answer>(sys, aut, query_for({}));
  BOOST_REQUIRE(run_until([&] { return first->arrived(); }));
  BOOST_REQUIRE_MESSAGE(first->value, "driver failed: " << error_message(*first->error));
  // The kubelet swaps a Secret volume's files atomically (a rename).
  write_text(token_file + ".new", "rotated-token\n");
  BOOST_REQUIRE(std::rename((token_file + ".new").c_str(), token_file.c_str()) == 0);
  auto second = ask<replica_answer>(sys, aut, query_for({}));
  BOOST_REQUIRE(run_until([&] { return second->arrived(); }));
  BOOST_REQUIRE(second->value);
  auto seen = gw.seen();
  BOOST_REQUIRE_EQUAL(seen.size(), 2u);
  BOOST_CHECK_EQUAL(seen[0], "Bearer first-token");
  BOOST_CHECK_EQUAL(seen[1], "Bearer rotated-token");
}

BOOST_AUTO_TEST_SUITE_END()
