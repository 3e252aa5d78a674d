// The hold answer fault (sim/answer_faults.hpp): a matching request waits before it is
// served, so a status patch sent for one request reaches storage only after that
// request was deleted and re-created under its name; its uid test then fails with 422.
#include <chrono>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "sim/answer_faults.hpp"
#include "wire_fixture.hpp"
#include "wire_http.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

answer_fault rule(const json& body) {
  auto r = answer_fault_from_json(body);
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.err().message));
  return *r;
}

std::string refusal(const json& body) {
  auto r = answer_fault_from_json(body);
  return r ? std::string{"accepted"} : r.err().message;
}

/// The status writer's patch: test the uid, then add the whole status.
std::string guarded_status_patch(const std::string& uid, const std::string& stage) {
  return json::array({{{"op", "test"}, {"path", "/metadata/uid"}, {"value", uid}},
                      {{"op", "add"},
                       {"path", "/status"},
                       {"value", {{"stage", stage}, {"status", "InProgress"}}}}})
    .dump();
}

struct clear_rules_after {
  ~clear_rules_after() { test::http_request(test::shared_sim(), "DELETE", "/admin/answer-faults"); }
};

int fired(const test::sim_process& sim, int id) {
  auto rules = test::http_request(sim, "GET", "/admin/answer-faults").json()["rules"];
  for (auto& r : rules)
    if (r.value("id", 0) == id)
      return r.value("fired", -1);
  return -1;
}

} // namespace

BOOST_AUTO_TEST_SUITE(held_requests)

BOOST_AUTO_TEST_CASE(a_hold_rule_is_taken_only_as_a_hold) {
  answer_faults table;
  table.add(rule({{"kind", "hold"}, {"method", "PATCH"}, {"path", "/apis/x/so1/status"}, {"holdMs", 250}}));
  BOOST_TEST(!table.take("api", "PATCH", "/apis/x/so1/status", false)); // never a broken answer
  BOOST_TEST(!table.take_rewrite("PATCH", "/apis/x/so1/status"));
  BOOST_TEST(!table.take_hold("api", "PUT", "/apis/x/so1/status", false));   // other method
  BOOST_TEST(!table.take_hold("api", "PATCH", "/apis/x/so2/status", false)); // other path
  auto held = table.take_hold("api", "PATCH", "/apis/x/so1/status", false);
  BOOST_REQUIRE(held.has_value());
  BOOST_TEST(held->hold.count() == 250);
  BOOST_TEST(!table.take_hold("api", "PATCH", "/apis/x/so1/status", false)); // count 1: used up
  BOOST_TEST(to_json(table.list().front()).value("holdMs", 0) == 250);
  BOOST_TEST(refusal({{"kind", "hold"}, {"path", "/apis"}}) == "answer fault: holdMs must be 1-600000");
  BOOST_TEST(!table.take_hold("portworx", "PATCH", "/apis/x/so1/status", false)); // other server
  table.add(rule({{"kind", "hold"}, {"server", "portworx"}, {"path", "/v1/volumes"}, {"holdMs", 5}}));
  BOOST_TEST(!table.take_hold("api", "POST", "/v1/volumes/inspectwithfilters", false));
  BOOST_TEST(table.take_hold("portworx", "POST", "/v1/volumes/inspectwithfilters", false).has_value());
}

BOOST_AUTO_TEST_CASE(a_held_guarded_patch_fails_its_uid_test_against_the_re_created_object) {
  auto& sim = test::shared_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  clear_rules_after cleanup;
  auto name = test::unique_name("held");
  auto path = test::schedopt_path + "/" + name;
  auto first = test::http_request(sim, "POST", test::schedopt_path, test::schedopt_body(name));
  BOOST_REQUIRE_EQUAL(first.status, 201);
  auto old_uid = first.json()["metadata"].value("uid", "");
  BOOST_REQUIRE(!old_uid.empty());

  auto added = test::http_request(sim, "POST", "/admin/answer-faults",
                                  json{{"kind", "hold"},
                                       {"method", "PATCH"},
                                       {"path", path + "/status"},
                                       {"holdMs", 1500}}
                                    .dump());
  BOOST_REQUIRE_EQUAL(added.status, 201);
  int id = added.json().value("id", 0);

  // The old request's patch goes out and is held...
  test::http_reply held;
  std::thread writer([&] {
    held = test::http_request(sim, "PATCH", path + "/status", guarded_status_patch(old_uid, "Evaluating"),
                              "application/json-patch+json");
  });
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (fired(sim, id) < 1 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  BOOST_CHECK_EQUAL(fired(sim, id), 1);
  // ...while the request is deleted and created again under its name.
  BOOST_CHECK_EQUAL(test::http_request(sim, "DELETE", path).status, 200);
  auto second = test::http_request(sim, "POST", test::schedopt_path, test::schedopt_body(name));
  BOOST_REQUIRE_EQUAL(second.status, 201);
  auto new_uid = second.json()["metadata"].value("uid", "");
  BOOST_CHECK_NE(new_uid, old_uid);
  writer.join();

  // Released, it meets the new object: the test fails and nothing is written.
  BOOST_CHECK_EQUAL(held.status, 422);
  BOOST_CHECK_EQUAL(held.json().value("reason", ""), "Invalid");
  BOOST_CHECK_EQUAL(held.json().value("message", "").rfind(
                      "the server rejected our request due to an error in our request", 0),
                    0u);
  auto now = test::http_request(sim, "GET", path).json();
  BOOST_CHECK_EQUAL(now["metadata"].value("uid", ""), new_uid);
  BOOST_CHECK(!now.contains("status") || now["status"].value("stage", "") != "Evaluating");

  // The new request's own guarded patch lands, unheld.
  auto own = test::http_request(sim, "PATCH", path + "/status", guarded_status_patch(new_uid, "Evaluating"),
                                "application/json-patch+json");
  BOOST_CHECK_EQUAL(own.status, 200);
  BOOST_CHECK_EQUAL(own.json()["status"].value("stage", ""), "Evaluating");
  BOOST_CHECK_EQUAL(fired(sim, id), 1);
}

BOOST_AUTO_TEST_SUITE_END()
