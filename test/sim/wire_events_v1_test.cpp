// Wire-level: events.k8s.io/v1 Events are the core/v1 Events, shown in either version.
#include <boost/test/unit_test.hpp>

#include "wire_fixture.hpp"
#include "wire_http.hpp"

using namespace schedopt::test;
using nlohmann::json;

BOOST_AUTO_TEST_SUITE(wire_events_v1)

BOOST_AUTO_TEST_CASE(one_event_in_two_versions) {
  auto& sim = shared_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto name = unique_name("ev");
  json event = {{"apiVersion", "events.k8s.io/v1"},
                {"kind", "Event"},
                {"metadata", {{"name", name}, {"namespace", "default"}}},
                {"eventTime", "2026-12-06T10:00:00.000000Z"},
                {"reportingController", "example.io/ctl"},
                {"reportingInstance", "ctl-0"},
                {"action", "Check"},
                {"reason", "Checked"},
                {"type", "Normal"},
                {"note", "checked"},
                {"regarding", {{"kind", "ConfigMap"}, {"name", "x"}, {"namespace", "default"}}}};
  auto created = http_request(sim, "POST", "/apis/events.k8s.io/v1/namespaces/default/events", event.dump());
  BOOST_TEST(created.status == 201);
  BOOST_TEST(created.json()["note"] == "checked");
  BOOST_TEST(created.json()["deprecatedSource"] == json::object());
  // The same object through core/v1.
  auto core = http_request(sim, "GET", "/api/v1/namespaces/default/events/" + name).json();
  BOOST_TEST(core["message"] == "checked");
  BOOST_TEST(core["involvedObject"]["name"] == "x");
  BOOST_TEST(core["reportingComponent"] == "example.io/ctl");
  // Listed through events.k8s.io/v1, as that version shows it.
  auto list = http_request(sim, "GET", "/apis/events.k8s.io/v1/namespaces/default/events").json();
  BOOST_TEST(list["kind"] == "EventList");
  bool found = false;
  for (const auto& item : list["items"])
    if (item["metadata"]["name"] == name)
      found = item["regarding"]["name"] == "x" && !item.contains("message");
  BOOST_TEST(found);
  // A merge patch in the v1 names.
  auto patched = http_request(sim, "PATCH", "/apis/events.k8s.io/v1/namespaces/default/events/" + name,
                              R"({"note":"rechecked"})", "application/merge-patch+json");
  BOOST_TEST(patched.status == 200);
  BOOST_TEST(patched.json()["note"] == "rechecked");
  // events.k8s.io/v1 requires an eventTime, in the core kind's words.
  event["metadata"]["name"] = name + "-untimed";
  event.erase("eventTime");
  auto refused = http_request(sim, "POST", "/apis/events.k8s.io/v1/namespaces/default/events", event.dump());
  BOOST_TEST(refused.status == 422);
  BOOST_TEST(refused.json()["message"] == "Event \"" + name + "-untimed\" is invalid: eventTime: Required value");
}

BOOST_AUTO_TEST_SUITE_END()
