// Writes whose answer is lost after the API server stored them (the simulator's
// reset-after-commit answer fault): the API client replays only what the server
// recognises, and the event recorder makes one Event with the right count.
#include <boost/test/unit_test.hpp>

#include <thread>

#include <nlohmann/json.hpp>

#include "actors/event_recorder_actor.hpp"
#include "model/decode.hpp"
#include "sim/wire_http.hpp"
#include "sim_client_fixture.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
using schedopt::ec;
using schedopt::error_code;
namespace k8s = schedopt::k8s;
namespace res = schedopt::k8s::resources;

namespace {

void arm_reset(const schedopt::test::sim_client& t, const std::string& method,
               const std::string& path, int count) {
  json rule = {{"kind", "reset-after-commit"}, {"method", method}, {"path", path}, {"count", count}};
  auto r = schedopt::test::http_request(t.sim, "POST", "/admin/answer-faults", rule.dump());
  BOOST_REQUIRE_MESSAGE(r.status == 201, r.body);
}

int fired(const schedopt::test::sim_client& t) {
  int n = 0;
  // Held by name: a range-for over `...json()["rules"]` would walk a destroyed temporary.
  auto listed = schedopt::test::http_request(t.sim, "GET", "/admin/answer-faults").json();
  for (auto& r : listed["rules"])
    n += r.value("fired", 0);
  return n;
}

/// Audited writes of `verb` on `resource` answered `code`.
int audited(const schedopt::test::sim_client& t, const std::string& verb,
            const std::string& resource, int code) {
  int n = 0;
  auto audit = schedopt::test::http_request(t.sim, "GET", "/admin/audit").json();
  for (auto& w : audit["writes"])
    if (w.value("verb", "") == verb && w.value("resource", "") == resource
        && w.value("code", 0) == code)
      ++n;
  return n;
}

std::string configmap(const json& metadata) {
  return json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", metadata}, {"data", {{"k", "v"}}}}
    .dump();
}

} // namespace

BOOST_AUTO_TEST_SUITE(retry_replay)

BOOST_AUTO_TEST_CASE(a_named_create_is_replayed_and_meets_what_it_made) {
  schedopt::test::sim_client t{{"--vmis", "1", "--nodes", "1", "--replicas", "1"}};
  k8s::list_request nodes;
  nodes.res = res::nodes;
  BOOST_REQUIRE(t.list(nodes));
  arm_reset(t, "POST", "/api/v1/namespaces/default/configmaps", 1);
  auto made = t.create({res::configmaps, "default", configmap({{"name", "replayed"}})});
  BOOST_TEST(fired(t) == 1);
  BOOST_REQUIRE(!made);
  BOOST_TEST(error_code(made.error) == ec::already_exists); // the replay's answer
  BOOST_TEST(audited(t, "create", "configmaps", 201) == 1);
  BOOST_TEST(audited(t, "create", "configmaps", 409) == 1);
}

BOOST_AUTO_TEST_CASE(a_generate_name_create_is_not_replayed) {
  schedopt::test::sim_client t{{"--vmis", "1", "--nodes", "1", "--replicas", "1"}};
  // A kept-alive connection first: libcurl resends a request by itself when a reused
  // connection dies without an answer, unless the client forbids it.
  k8s::list_request nodes;
  nodes.res = res::nodes;
  BOOST_REQUIRE(t.list(nodes));
  arm_reset(t, "POST", "/api/v1/namespaces/default/configmaps", 1);
  auto made = t.create({res::configmaps, "default", configmap({{"generateName", "once-"}})});
  BOOST_TEST(fired(t) == 1);
  BOOST_REQUIRE(!made);
  BOOST_TEST(error_code(made.error) == ec::transport_error);
  std::this_thread::sleep_for(1s); // a retry would have gone out by now (backoff 200 ms)
  BOOST_TEST(audited(t, "create", "configmaps", 201) == 1); // one object, no second one
  BOOST_TEST(audited(t, "create", "configmaps", 409) == 0);
}

BOOST_AUTO_TEST_CASE(events_lost_after_commit_are_made_once_and_counted_right) {
  schedopt::test::sim_client t{{"--vmis", "1", "--nodes", "1", "--replicas", "1"}};
  arm_reset(t, "POST", "/api/v1/namespaces/default/events", 1);
  arm_reset(t, "PATCH", "/api/v1/namespaces/default/events/", 1);
  auto rec = t.env.own(schedopt::spawn_event_recorder(*t.env.sys, t.client));
  schedopt::object_reference so;
  so.api_version = "stork.libopenstorage.org/v1alpha1";
  so.kind = "SchedulingOptimization";
  so.name = "so-replay";
  so.uid = "uid-replay";
  for (int i = 0; i < 3; ++i)
    caf::anon_send(rec, schedopt::event_record{so, "Warning", "MigrationFailed", "vm x failed"});
  std::this_thread::sleep_for(200ms);
  t.flush_events(rec);
  BOOST_TEST(fired(t) == 2); // the create's answer and the first bump's answer were lost
  std::vector<schedopt::event> ours;
  for (auto& e : t.events_in("default"))
    if (e.involved_object.name == "so-replay")
      ours.push_back(e);
  BOOST_REQUIRE_EQUAL(ours.size(), 1u);
  BOOST_TEST(ours[0].count == 3);
  // client-go's name: "<object>.<UnixNano in hex>".
  auto& name = ours[0].metadata.name;
  BOOST_TEST(name.rfind("so-replay.", 0) == 0u);
  BOOST_TEST(name.size() == std::string{"so-replay."}.size() + 16); // nanoseconds since 2004 are 16 hex digits
  BOOST_TEST(name.find_first_not_of("0123456789abcdef", 10) == std::string::npos);
  BOOST_TEST(audited(t, "create", "events", 201) == 1);
  BOOST_TEST(audited(t, "create", "events", 409) == 1);
  BOOST_TEST(audited(t, "patch", "events", 200) == 2);
  BOOST_TEST(audited(t, "patch", "events", 422) == 1); // the replayed bump failed its test
}

BOOST_AUTO_TEST_SUITE_END()
