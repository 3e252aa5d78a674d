// Write preconditions over the wire, as kube-apiserver has them: a PUT's body uid is a
// precondition (409); a PATCH has none, so a foreign uid in a /status merge patch lands
// (the stored metadata is kept) and one in a main-resource patch is an immutable-field
// 422; a failed JSON-patch `test` is apiserver's generic 422; DeleteOptions
// preconditions answer 409 naming the kind.
#include <boost/test/unit_test.hpp>

#include "wire_fixture.hpp"
#include "wire_http.hpp"

using namespace schedopt::test;
using nlohmann::json;

namespace {

const std::string foreign = "00000000-0000-4000-8000-000000000000";
const std::string group = "stork.libopenstorage.org";

struct request_object {
  std::string name;
  std::string path;
  json object;
  std::string uid() const { return object["metadata"]["uid"].get<std::string>(); }
};

request_object create_request(const std::string& prefix) {
  auto& sim = shared_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  request_object r;
  r.name = unique_name(prefix);
  r.path = schedopt_path + "/" + r.name;
  auto created = http_request(sim, "POST", schedopt_path, schedopt_body(r.name));
  BOOST_REQUIRE_EQUAL(created.status, 201);
  r.object = created.json();
  return r;
}

json generic_invalid() {
  return json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                     R"("message":"the server rejected our request due to an error in our request",)"
                     R"("reason":"Invalid","details":{},"code":422})");
}

} // namespace

BOOST_AUTO_TEST_SUITE(preconditions_suite)

BOOST_AUTO_TEST_CASE(a_status_merge_patch_with_a_foreign_uid_lands_and_keeps_the_stored_uid) {
  auto& sim = shared_sim();
  auto r = create_request("uid-merge");
  auto patched = http_request(sim, "PATCH", r.path + "/status",
                              R"({"metadata":{"uid":")" + foreign + R"(","labels":{"x":"y"}},)"
                              R"("status":{"stage":"Final"}})",
                              "application/merge-patch+json");
  BOOST_TEST(patched.status == 200);
  auto stored = http_request(sim, "GET", r.path).json();
  BOOST_TEST(stored["status"]["stage"] == "Final");
  BOOST_TEST(stored["metadata"]["uid"] == r.uid());
  // The status strategy copies all stored metadata: the label in the body is dropped too.
  BOOST_TEST(!stored["metadata"].contains("labels"));
}

BOOST_AUTO_TEST_CASE(a_main_resource_patch_that_changes_the_uid_is_invalid) {
  auto& sim = shared_sim();
  auto r = create_request("uid-immutable");
  auto refused = http_request(sim, "PATCH", r.path,
                              R"([{"op":"replace","path":"/metadata/uid","value":")" + foreign + R"("}])",
                              "application/json-patch+json");
  BOOST_TEST(refused.status == 422);
  auto body_text = "Invalid value: \"" + foreign + "\": field is immutable";
  BOOST_TEST(refused.json()
             == json({{"kind", "Status"},
                      {"apiVersion", "v1"},
                      {"metadata", json::object()},
                      {"status", "Failure"},
                      {"message", "SchedulingOptimization." + group + " \"" + r.name
                                    + "\" is invalid: metadata.uid: " + body_text},
                      {"reason", "Invalid"},
                      {"details",
                       {{"name", r.name},
                        {"group", group},
                        {"kind", "SchedulingOptimization"},
                        {"causes",
                         {{{"reason", "FieldValueInvalid"}, {"message", body_text}, {"field", "metadata.uid"}}}}}},
                      {"code", 422}}));
  BOOST_TEST(http_request(sim, "GET", r.path).json()["metadata"]["uid"] == r.uid());

  // Clearing the uid is no way around it: an empty uid takes the stored one.
  auto cleared = http_request(sim, "PATCH", r.path, R"({"metadata":{"uid":null,"labels":{"x":"y"}}})",
                              "application/merge-patch+json");
  BOOST_TEST(cleared.status == 200);
  BOOST_TEST(cleared.json()["metadata"]["uid"] == r.uid());
  BOOST_TEST(cleared.json()["metadata"]["labels"]["x"] == "y");
}

BOOST_AUTO_TEST_CASE(a_put_whose_body_names_a_foreign_uid_fails_its_precondition) {
  auto& sim = shared_sim();
  auto r = create_request("uid-put");
  auto foreign_obj = r.object;
  foreign_obj["metadata"]["uid"] = foreign;
  auto conflict = http_request(sim, "PUT", r.path, foreign_obj.dump());
  BOOST_TEST(conflict.status == 409);
  BOOST_TEST(conflict.json()
             == json({{"kind", "Status"},
                      {"apiVersion", "v1"},
                      {"metadata", json::object()},
                      {"status", "Failure"},
                      {"message", "Operation cannot be fulfilled on schedulingoptimizations." + group + " \""
                                    + r.name + "\": StorageError: invalid object, Code: 4, Key: /registry/"
                                    + group + "/schedulingoptimizations/" + r.name
                                    + ", ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in "
                                      "precondition: " + foreign + ", UID in object meta: " + r.uid()},
                      {"reason", "Conflict"},
                      {"details", {{"name", r.name}, {"group", group}, {"kind", "schedulingoptimizations"}}},
                      {"code", 409}}));
  foreign_obj["status"] = {{"stage", "Final"}};
  BOOST_TEST(http_request(sim, "PUT", r.path + "/status", foreign_obj.dump()).status == 409);
  auto stored = http_request(sim, "GET", r.path).json();
  BOOST_TEST(!stored.contains("status"));
  BOOST_TEST(stored["metadata"]["resourceVersion"] == r.object["metadata"]["resourceVersion"]);
}

BOOST_AUTO_TEST_CASE(a_failed_json_patch_test_is_the_generic_invalid_and_changes_nothing) {
  auto& sim = shared_sim();
  auto r = create_request("uid-test");
  auto guarded = [&](const std::string& uid) {
    return http_request(sim, "PATCH", r.path + "/status",
                        R"([{"op":"test","path":"/metadata/uid","value":")" + uid + R"("},)"
                        R"({"op":"add","path":"/status","value":{"stage":"Pending"}}])",
                        "application/json-patch+json");
  };
  auto refused = guarded(foreign);
  BOOST_TEST(refused.status == 422);
  BOOST_TEST(refused.json() == generic_invalid());
  BOOST_TEST(!http_request(sim, "GET", r.path).json().contains("status"));
  // A path that is not there answers the very same body.
  auto missing = http_request(sim, "PATCH", r.path + "/status",
                              R"([{"op":"replace","path":"/status/stage","value":"Pending"}])",
                              "application/json-patch+json");
  BOOST_TEST(missing.status == 422);
  BOOST_TEST(missing.json() == generic_invalid());

  auto applied = guarded(r.uid());
  BOOST_TEST(applied.status == 200);
  BOOST_TEST(applied.json()["status"]["stage"] == "Pending");
}

BOOST_AUTO_TEST_CASE(delete_preconditions_answer_conflict_naming_the_kind) {
  auto& sim = shared_sim();
  auto r = create_request("uid-delete");
  auto by_uid = http_request(sim, "DELETE", r.path, R"({"preconditions":{"uid":")" + foreign + R"("}})");
  BOOST_TEST(by_uid.status == 409);
  BOOST_TEST(by_uid.json()
             == json({{"kind", "Status"},
                      {"apiVersion", "v1"},
                      {"metadata", json::object()},
                      {"status", "Failure"},
                      {"message", "Operation cannot be fulfilled on SchedulingOptimization." + group + " \""
                                    + r.name + "\": the UID in the precondition (" + foreign
                                    + ") does not match the UID in record (" + r.uid()
                                    + "). The object might have been deleted and then recreated"},
                      {"reason", "Conflict"},
                      {"details", {{"name", r.name}, {"group", group}, {"kind", "SchedulingOptimization"}}},
                      {"code", 409}}));
  auto by_rv = http_request(sim, "DELETE", r.path, R"({"preconditions":{"resourceVersion":"1"}})");
  BOOST_TEST(by_rv.status == 409);
  BOOST_TEST(by_rv.json()["message"].get<std::string>().find("the ResourceVersion in the precondition (1)")
             != std::string::npos);
  BOOST_TEST(http_request(sim, "GET", r.path).status == 200);

  auto deleted = http_request(sim, "DELETE", r.path, R"({"preconditions":{"uid":")" + r.uid() + R"("}})");
  BOOST_TEST(deleted.status == 200);
  BOOST_TEST(http_request(sim, "GET", r.path).status == 404);
}

BOOST_AUTO_TEST_SUITE_END()
