// An informer against a tiny scripted API server on 127.0.0.1: a list page with one
// undecodable item and a watch with an undecodable event and an unparseable line still
// sync, deliver later good events, and count every skipped object; a relist keeps an
// object's last good version and an undecodable DELETED still deletes.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <mutex>
#include <thread>

#include <httplib.h>

#include "actors/informer_actor.hpp"
#include "k8s/listen_thread.hpp"
#include "k8s/metrics.hpp"
#include "sim_client_fixture.hpp"

using namespace std::chrono_literals;
namespace k8s = schedopt::k8s;

namespace {

const char* node_list = R"({"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"10"},
  "items":[
    {"metadata":{"name":"node-a","resourceVersion":"5"},"spec":{}},
    {"metadata":{"name":"node-b","resourceVersion":"6"},"spec":{"unschedulable":"no"}}]})";

// First watch: an event whose object does not decode (its version does), then a line
// that is not JSON at all; then the stream ends. The second watch must resume at 11.
const char* first_watch =
  R"({"type":"MODIFIED","object":{"metadata":{"name":"node-b","resourceVersion":"11"},"spec":{"unschedulable":"no"}}})"
  "\n{oops\n";
const char* second_watch =
  R"({"type":"ADDED","object":{"metadata":{"name":"node-c","resourceVersion":"12"},"spec":{}}})"
  "\n";

/// Serves `lists[i]` to the i-th list (the last one again after that) and `watches[i]`
/// to the i-th watch; every watch but the last ends after its lines (a clean end, so the
/// informer resumes from its last version), the last one stays open until the test ends.
struct fake_api {
  fake_api(std::vector<std::string> list_bodies, std::vector<std::string> watch_bodies)
    : list_bodies(std::move(list_bodies)), watch_bodies(std::move(watch_bodies)) {
    server.Get("/api/v1/nodes", [this](const httplib::Request& req, httplib::Response& res) {
      if (!req.has_param("watch")) {
        auto n = static_cast<std::size_t>(lists++);
        res.set_content(this->list_bodies[std::min(n, this->list_bodies.size() - 1)],
                        "application/json");
        return;
      }
      std::size_t n;
      {
        std::lock_guard<std::mutex> guard{mutex};
        watch_versions.push_back(req.get_param_value("resourceVersion"));
        n = watch_versions.size() - 1;
      }
      bool last = n + 1 >= this->watch_bodies.size();
      std::string body = n < this->watch_bodies.size() ? this->watch_bodies[n] : "";
      // The API server's own watch type; it also keeps httplib from compressing the
      // stream, which would hold every byte back until the watch ends.
      res.set_chunked_content_provider(
        "application/json;stream=watch",
        [this, body, last, sent = false](size_t, httplib::DataSink& sink) mutable {
          if (!sent) {
            sent = true;
            if (!body.empty())
              sink.write(body.data(), body.size());
            if (!last)
              sink.done();
            return true;
          }
          while (!stopping)
            std::this_thread::sleep_for(20ms);
          sink.done();
          return true;
        });
    });
    port = server.bind_to_any_port("127.0.0.1");
    thread = schedopt::start_listening(server);
    while (!server.is_running())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  ~fake_api() {
    stopping = true;
    server.stop();
    thread.join();
  }

  std::vector<std::string> versions() {
    std::lock_guard<std::mutex> guard{mutex};
    return watch_versions;
  }

  std::vector<std::string> list_bodies;
  std::vector<std::string> watch_bodies;
  httplib::Server server;
  int port = 0;
  std::thread thread;
  std::atomic<bool> stopping{false};
  std::atomic<int> lists{0};
  std::mutex mutex;
  std::vector<std::string> watch_versions;
};

double decode_errors() {
  return k8s::default_metrics().value("schedopt_decode_errors_total", {{"resource", "nodes"}});
}

template <class T>
std::vector<T> snapshot(caf::actor_system& sys, schedopt::informer_actor<T> inf) {
  caf::scoped_actor self{sys};
  std::vector<T> out;
  self->request(inf, 10s, schedopt::atom::snapshot_v)
    .receive([&](schedopt::shared_list<T>& v) { out = schedopt::values_of(v); }, [&](caf::error&) {});
  return out;
}

std::vector<std::string> names(const std::vector<schedopt::node>& nodes) {
  std::vector<std::string> out;
  for (auto& n : nodes)
    out.push_back(n.metadata.name);
  std::sort(out.begin(), out.end());
  return out;
}

schedopt::informer_actor<schedopt::node> spawn_node_informer(schedopt::test::actor_env& env,
                                                             const fake_api& api) {
  k8s::cluster_config cfg;
  cfg.server = "http://127.0.0.1:" + std::to_string(api.port);
  cfg.source = "test";
  auto client = schedopt::spawn_api_client(*env.sys, cfg);
  BOOST_REQUIRE(client);
  env.own(*client);
  return env.own(schedopt::spawn_informer<schedopt::node>(*env.sys, *client));
}

} // namespace

BOOST_AUTO_TEST_CASE(informer_skips_undecodable_objects_and_keeps_watching) {
  fake_api api{{node_list}, {first_watch, second_watch}};
  auto before = decode_errors();
  schedopt::test::actor_env env;
  auto inf = spawn_node_informer(env, api);

  std::vector<std::string> have;
  auto deadline = std::chrono::steady_clock::now() + 15s;
  while (std::chrono::steady_clock::now() < deadline) {
    have = names(snapshot(*env.sys, inf));
    if (have.size() >= 2 && api.versions().size() >= 2)
      break;
    std::this_thread::sleep_for(50ms);
  }
  BOOST_CHECK((have == std::vector<std::string>{"node-a", "node-c"}));
  caf::scoped_actor self{*env.sys};
  bool synced = false;
  self->request(inf, 10s, schedopt::atom::synced_v)
    .receive([&](bool b) { synced = b; }, [&](caf::error&) {});
  BOOST_CHECK(synced);
  // One list, never a relist; the watch resumed past the undecodable event.
  BOOST_CHECK_EQUAL(api.lists.load(), 1);
  auto versions = api.versions();
  BOOST_REQUIRE_GE(versions.size(), 2u);
  BOOST_CHECK_EQUAL(versions[0], "10");
  BOOST_CHECK_EQUAL(versions[1], "11");
  // The bad list item, the bad watch event and the unparseable line.
  BOOST_CHECK_EQUAL(decode_errors() - before, 3);
  BOOST_CHECK_NE(k8s::default_metrics().render().find("# HELP schedopt_decode_errors_total"),
                 std::string::npos);
  env.stop_all();
}

BOOST_AUTO_TEST_CASE(relist_keeps_last_good_version_and_undecodable_delete_still_deletes) {
  const char* good = R"({"kind":"NodeList","metadata":{"resourceVersion":"10"},"items":[
    {"metadata":{"name":"node-a","resourceVersion":"5"},"spec":{}},
    {"metadata":{"name":"node-x","resourceVersion":"6"},"spec":{}}]})";
  const char* node_a_broken = R"({"kind":"NodeList","metadata":{"resourceVersion":"20"},"items":[
    {"metadata":{"name":"node-a","resourceVersion":"15"},"spec":{"unschedulable":"no"}},
    {"metadata":{"name":"node-x","resourceVersion":"6"},"spec":{}}]})";
  const char* expired =
    R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old"}})"
    "\n";
  const char* delete_x =
    R"({"type":"DELETED","object":{"metadata":{"name":"node-x","resourceVersion":"21"},"spec":{"unschedulable":1}}})"
    "\n";
  fake_api api{{good, node_a_broken}, {expired, delete_x}};
  auto before = decode_errors();
  schedopt::test::actor_env env;
  auto inf = spawn_node_informer(env, api);
  std::vector<schedopt::node> have;
  auto deadline = std::chrono::steady_clock::now() + 15s;
  while (std::chrono::steady_clock::now() < deadline) {
    have = snapshot(*env.sys, inf);
    if (api.versions().size() >= 2 && have.size() == 1)
      break;
    std::this_thread::sleep_for(50ms);
  }
  BOOST_CHECK_EQUAL(api.lists.load(), 2);
  // node-a's new version does not decode: the store keeps the one it had, not a deletion.
  BOOST_REQUIRE_EQUAL(have.size(), 1u);
  BOOST_CHECK_EQUAL(have[0].metadata.name, "node-a");
  BOOST_CHECK_EQUAL(have[0].metadata.resource_version, "5");
  BOOST_CHECK_EQUAL(decode_errors() - before, 2);
  env.stop_all();
}
