// The two servers of `schedopt run` in process (docs/design.md §4.6): /metrics over HTTPS
// answers by the reviews (an in-test API stands in for the API server; the real one is
// test/deploy/metrics_access_test.cpp), plain HTTP only when asked; the probes on their
// own port answer within the kubelet's probe timeout while slow and idle clients hold
// connections to both ports, and while every /metrics worker waits on a slow review.
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <map>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "actors/health_server.hpp"
#include "actors/metrics_server.hpp"
#include "actors/metrics_tls.hpp"

using namespace schedopt;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

/// The kubelet's default probe timeout (timeoutSeconds 1).
constexpr auto kubelet_default_probe_timeout = 1s;
/// deploy/manager/deployment.yaml's probes' timeoutSeconds.
constexpr auto deployed_probe_timeout = 3s;

/// A TCP client that connects, sends `bytes` (maybe nothing) and then neither sends
/// nor reads: what a slow or idle client does to a server's worker.
class stalled_client {
public:
  stalled_client(int port, const std::string& bytes) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = fd_ >= 0 && connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    if (connected_ && !bytes.empty())
      connected_ = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  }
  ~stalled_client() {
    if (fd_ >= 0)
      close(fd_);
  }
  stalled_client(const stalled_client&) = delete;
  stalled_client& operator=(const stalled_client&) = delete;
  bool connected() const { return connected_; }

private:
  int fd_ = -1;
  bool connected_ = false;
};

/// Half a request line for plain HTTP; for TLS, the first bytes of a ClientHello record.
const std::string half_request_line = "GET /healthz HT";
const std::string half_client_hello = std::string("\x16\x03\x01\x00", 4);

/// `count` stalled clients, connected a few at a time: cpp-httplib listens with a backlog
/// of 5, and a connect the kernel completes beyond it only reaches the server when its
/// packets are resent, a second later, so a burst would stall fewer workers than it seems.
std::vector<std::unique_ptr<stalled_client>> stall(int port, int count, const std::string& bytes) {
  std::vector<std::unique_ptr<stalled_client>> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(std::make_unique<stalled_client>(port, bytes));
    BOOST_REQUIRE(out.back()->connected());
    if (i % 4 == 3)
      std::this_thread::sleep_for(30ms);
  }
  std::this_thread::sleep_for(100ms); // each taken up by a worker or queued for one
  return out;
}

struct probe {
  int status = 0;
  std::string body;
  std::chrono::milliseconds took{};
};

/// One GET as the kubelet's prober sends it: a fresh connection, no keep-alive.
probe get_probe(int port, const std::string& path) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_connection_timeout(5);
  cli.set_read_timeout(10);
  auto start = std::chrono::steady_clock::now();
  auto res = cli.Get(path.c_str());
  probe out;
  out.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  if (res) {
    out.status = res->status;
    out.body = res->body;
  }
  return out;
}

/// An API server answering reviews from two tables, optionally slowly.
struct fake_reviews {
  std::map<std::string, std::string> users; // token -> username
  std::set<std::string> allowed;             // usernames that may get /metrics
  std::chrono::milliseconds delay{0};
  std::atomic<int> sent{0};

  k8s::review_sender sender() {
    return [this](const k8s::resource& kind, const std::string& body) -> expected<std::string> {
      ++sent;
      std::this_thread::sleep_for(delay);
      auto review = json::parse(body);
      if (kind.plural == "tokenreviews") {
        auto it = users.find(review["spec"]["token"].get<std::string>());
        review["status"] = it == users.end()
                             ? json{{"user", json::object()}, {"error", "invalid bearer token"}}
                             : json{{"authenticated", true},
                                    {"user", {{"username", it->second}, {"groups", {"system:authenticated"}}}}};
      } else {
        review["status"] = {{"allowed", allowed.count(review["spec"].value("user", "")) > 0}};
      }
      return review.dump();
    };
  }
};

std::unique_ptr<metrics_server> secure_metrics(fake_reviews& api) {
  metrics_server_options options;
  options.listen = "127.0.0.1:0";
  options.access = std::make_shared<k8s::delegated_access>(api.sender());
  auto started = metrics_server::start(options);
  BOOST_REQUIRE_MESSAGE(bool(started), (started ? "" : started.err().message));
  return std::move(*started);
}

std::unique_ptr<health_server> health() {
  auto started = health_server::start("127.0.0.1:0");
  BOOST_REQUIRE_MESSAGE(bool(started), (started ? "" : started.err().message));
  return std::move(*started);
}

httplib::Result scrape(int port, const std::string& token = "") {
  httplib::SSLClient cli("127.0.0.1", port);
  cli.enable_server_certificate_verification(false); // as Prometheus's insecureSkipVerify
  cli.set_connection_timeout(5);
  cli.set_read_timeout(30);
  httplib::Headers headers;
  if (!token.empty())
    headers.emplace("Authorization", "Bearer " + token);
  return cli.Get("/metrics", headers);
}

struct temp_files {
  std::filesystem::path dir;
  temp_files() {
    char tmpl[] = "/tmp/schedopt-metrics-tls-XXXXXX";
    dir = mkdtemp(tmpl);
  }
  ~temp_files() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(metrics_server_suite)

BOOST_AUTO_TEST_CASE(probes_answer_on_their_own_port) {
  auto probes = health();
  BOOST_TEST(get_probe(probes->port(), "/healthz").status == 200);
  auto not_ready = get_probe(probes->port(), "/readyz");
  BOOST_TEST(not_ready.status == 503);
  BOOST_TEST(not_ready.body == "not ready: informers not synced");
  probes->set_ready(true);
  BOOST_TEST(get_probe(probes->port(), "/readyz").status == 200);
  probes->set_health_check([] { return std::string{"controller actor is not running"}; });
  auto sick = get_probe(probes->port(), "/healthz");
  BOOST_TEST(sick.status == 503);
  BOOST_TEST(sick.body == "unhealthy: controller actor is not running");
  BOOST_TEST(get_probe(probes->port(), "/readyz").body == "not ready: controller actor is not running");
  BOOST_TEST(get_probe(probes->port(), "/metrics").status == 404); // not here
}

BOOST_AUTO_TEST_CASE(secure_metrics_answer_by_the_reviews) {
  fake_reviews api;
  api.users = {{"reader-token", "system:serviceaccount:monitoring:prometheus"},
               {"other-token", "system:serviceaccount:monitoring:other"}};
  api.allowed = {"system:serviceaccount:monitoring:prometheus"};
  auto metrics = secure_metrics(api);
  BOOST_TEST(metrics->secure());

  auto ok = scrape(metrics->port(), "reader-token");
  BOOST_REQUIRE(ok);
  BOOST_TEST(ok->status == 200);
  BOOST_TEST(ok->body.find("# TYPE schedopt_build_info gauge") != std::string::npos);
  BOOST_TEST(ok->get_header_value("Content-Type") == "text/plain; version=0.0.4");

  auto denied = scrape(metrics->port(), "other-token");
  BOOST_REQUIRE(denied);
  BOOST_TEST(denied->status == 403);
  BOOST_TEST(denied->body == "Authorization denied for user system:serviceaccount:monitoring:other\n");

  for (const std::string token : {"", "unknown-token"}) {
    auto refused = scrape(metrics->port(), token);
    BOOST_REQUIRE(refused);
    BOOST_TEST(refused->status == 401, "token \"" << token << "\"");
    BOOST_TEST(refused->body == "Unauthorized\n");
    BOOST_TEST(refused->body.find("schedopt_") == std::string::npos);
  }

  // Plain HTTP to the HTTPS port gets no answer at all, let alone the metrics.
  httplib::Client plain("127.0.0.1", metrics->port());
  plain.set_read_timeout(5);
  auto cleartext = plain.Get("/metrics", {{"Authorization", "Bearer reader-token"}});
  BOOST_TEST(!cleartext);
  // The probes are not on this port.
  httplib::SSLClient healthz("127.0.0.1", metrics->port());
  healthz.enable_server_certificate_verification(false);
  auto probe_here = healthz.Get("/healthz");
  BOOST_REQUIRE(probe_here);
  BOOST_TEST(probe_here->status == 404);
}

BOOST_AUTO_TEST_CASE(plain_metrics_only_when_asked) {
  metrics_server_options options;
  options.listen = "127.0.0.1:0";
  options.secure = false;
  auto started = metrics_server::start(options);
  BOOST_REQUIRE(started);
  BOOST_TEST(!(*started)->secure());
  auto page = get_probe((*started)->port(), "/metrics");
  BOOST_TEST(page.status == 200);
  BOOST_TEST(page.body.find("schedopt_build_info") != std::string::npos);

  options.secure = true; // without the reviews: refused, never served open
  auto refused = metrics_server::start(options);
  BOOST_REQUIRE(!refused);
  BOOST_TEST(refused.err().message == "metrics: secure serving needs the API server's reviews");
}

BOOST_AUTO_TEST_CASE(a_given_certificate_is_served_and_bad_files_are_refused) {
  temp_files files;
  auto identity = self_signed_identity();
  BOOST_REQUIRE(identity);
  auto cert = files.write("tls.crt", identity->certificate_chain_pem);
  auto key = files.write("tls.key", identity->private_key_pem);
  fake_reviews api;
  api.users = {{"t", "u"}};
  api.allowed = {"u"};
  metrics_server_options options;
  options.listen = "127.0.0.1:0";
  options.cert_file = cert;
  options.key_file = key;
  options.access = std::make_shared<k8s::delegated_access>(api.sender());
  auto started = metrics_server::start(options);
  BOOST_REQUIRE_MESSAGE(bool(started), (started ? "" : started.err().message));
  // Verified against that very certificate (it is its own CA; IP SAN 127.0.0.1).
  httplib::SSLClient verifying("127.0.0.1", (*started)->port());
  verifying.set_ca_cert_path(cert.c_str());
  verifying.enable_server_certificate_verification(true);
  auto res = verifying.Get("/metrics", {{"Authorization", "Bearer t"}});
  BOOST_REQUIRE_MESSAGE(res, "TLS verification against the given certificate failed: "
                               << httplib::to_string(res.error()));
  BOOST_TEST(res->status == 200);

  auto refusal = [&](const std::string& cert_file, const std::string& key_file) {
    auto o = options;
    o.cert_file = cert_file;
    o.key_file = key_file;
    auto r = metrics_server::start(o);
    BOOST_REQUIRE(!r);
    return r.err().message;
  };
  BOOST_TEST(refusal("/nonexistent/tls.crt", key) == "metricsCertFile \"/nonexistent/tls.crt\": cannot be read");
  BOOST_TEST(refusal(files.write("empty.crt", "no pem here"), key)
             == "metricsCertFile \"" + (files.dir / "empty.crt").string() + "\": no PEM certificate in it");
  auto other = self_signed_identity();
  BOOST_REQUIRE(other);
  auto other_key = files.write("other.key", other->private_key_pem);
  BOOST_TEST(refusal(cert, other_key)
             == "metricsKeyFile \"" + other_key + "\" is not the key of the certificate in metricsCertFile \""
                  + cert + "\"");
}

// The brief's case: slow clients (half a request line, half a ClientHello) and idle ones
// on both ports; every probe still answers within the kubelet's default timeout.
BOOST_AUTO_TEST_CASE(slow_and_idle_clients_on_both_ports_never_stall_a_probe) {
  fake_reviews api;
  auto metrics = secure_metrics(api);
  auto probes = health();
  probes->set_ready(true);
  auto slow_health = stall(probes->port(), 8, half_request_line);
  auto idle_health = stall(probes->port(), 4, "");
  auto slow_metrics = stall(metrics->port(), 8, half_client_hello);
  auto idle_metrics = stall(metrics->port(), 4, "");
  // Across the servers' silence timeouts: the stalled connections are dropped and the
  // probes keep answering at once.
  std::chrono::milliseconds slowest{0};
  for (int round = 0; round < 6; ++round) {
    for (const char* path : {"/healthz", "/readyz"}) {
      auto p = get_probe(probes->port(), path);
      BOOST_TEST(p.status == 200, path << " round " << round);
      slowest = std::max(slowest, p.took);
    }
    std::this_thread::sleep_for(400ms);
  }
  BOOST_TEST_MESSAGE("slowest probe with 12 stalled clients per port: " << slowest.count() << " ms");
  BOOST_TEST((slowest < kubelet_default_probe_timeout), slowest.count() << " ms");
}

// More stalled connections than the probe server has workers: each is dropped after the
// silence timeout, so a probe waits about that long, within the deployed probe timeout.
BOOST_AUTO_TEST_CASE(more_stalled_clients_than_workers_delay_a_probe_by_the_silence_timeout) {
  auto probes = health();
  auto stalled = stall(probes->port(), health_server::worker_threads + 8, half_request_line);
  auto p = get_probe(probes->port(), "/healthz");
  BOOST_TEST(p.status == 200);
  BOOST_TEST_MESSAGE("probe behind " << health_server::worker_threads + 8 << " stalled clients: "
                                     << p.took.count() << " ms");
  // It did wait (every worker was held), and no longer than the silence timeout allows.
  BOOST_TEST((p.took >= 300ms), p.took.count() << " ms");
  BOOST_TEST((p.took < deployed_probe_timeout), p.took.count() << " ms");
}

// Every /metrics worker waits on a review that takes 3 s: the probes do not notice.
BOOST_AUTO_TEST_CASE(a_slow_scrape_never_delays_a_probe) {
  fake_reviews api;
  api.users = {{"t0", "u0"}, {"t1", "u1"}};
  api.allowed = {"u0", "u1"};
  api.delay = 1500ms; // two reviews: 3 s a scrape
  auto metrics = secure_metrics(api);
  auto probes = health();
  probes->set_ready(true);
  std::vector<std::future<int>> scrapes;
  for (int i = 0; i < metrics_server::worker_threads + 2; ++i)
    scrapes.push_back(std::async(std::launch::async, [&, i] {
      auto r = scrape(metrics->port(), "t" + std::to_string(i % 2));
      return r ? r->status : 0;
    }));
  std::this_thread::sleep_for(300ms);
  BOOST_REQUIRE(api.sent > 0); // the scrapes are waiting on their reviews
  std::chrono::milliseconds slowest{0};
  for (int i = 0; i < 5; ++i) {
    auto p = get_probe(probes->port(), "/readyz");
    BOOST_TEST(p.status == 200);
    slowest = std::max(slowest, p.took);
    std::this_thread::sleep_for(200ms);
  }
  BOOST_TEST((slowest < kubelet_default_probe_timeout), slowest.count() << " ms");
  for (auto& s : scrapes)
    BOOST_TEST(s.get() == 200); // served in the end, none dropped
}

BOOST_AUTO_TEST_CASE(bad_listen_addresses_are_refused_in_one_line) {
  BOOST_TEST(health_server::start("8081").err().message == "--health-listen \"8081\": expected [host]:port");
  BOOST_TEST(health_server::start(":80x").err().message == "--health-listen \":80x\": bad port");
  auto probes = health();
  auto taken = health_server::start("127.0.0.1:" + std::to_string(probes->port()));
  BOOST_REQUIRE(!taken);
  BOOST_TEST(taken.err().message.find("cannot listen") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
