// Wire-level: authentication, Status error shapes, create/update/patch error paths.
#include <boost/test/unit_test.hpp>

#include "wire_fixture.hpp"
#include "wire_http.hpp"

using namespace schedopt::test;
using nlohmann::json;

BOOST_AUTO_TEST_SUITE(wire_errors)

BOOST_AUTO_TEST_CASE(unauthenticated_requests_get_401) {
  auto& sim = shared_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto reply = http_request(sim, "GET", "/api/v1/namespaces", {}, {}, "");
  BOOST_TEST(reply.status == 401);
  BOOST_TEST(reply.json() == json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},)"
                                         R"("status":"Failure","message":"Unauthorized",)"
                                         R"("reason":"Unauthorized","code":401})"));
  auto wrong = http_request(sim, "GET", "/api/v1/namespaces", {}, {}, "not-the-token");
  BOOST_TEST(wrong.status == 401);
  auto health = http_request(sim, "GET", "/healthz", {}, {}, "");
  BOOST_TEST(health.status == 200);
}

BOOST_AUTO_TEST_CASE(not_found_is_shaped_like_kubernetes) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto custom = http_request(sim, "GET", schedopt_path + "/nope");
  BOOST_TEST(custom.status == 404);
  BOOST_TEST(custom.json()
             == json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                            R"("message":"schedulingoptimizations.stork.libopenstorage.org \"nope\" not found",)"
                            R"("reason":"NotFound","details":{"name":"nope","group":"stork.libopenstorage.org",)"
                            R"("kind":"schedulingoptimizations"},"code":404})"));
  auto core = http_request(sim, "GET", "/api/v1/namespaces/default/configmaps/nope");
  BOOST_TEST(core.status == 404);
  BOOST_TEST(core.json()
             == json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                            R"("message":"configmaps \"nope\" not found","reason":"NotFound",)"
                            R"("details":{"name":"nope","kind":"configmaps"},"code":404})"));
  auto unknown = http_request(sim, "GET", "/apis/nothing.example.io/v1/things");
  BOOST_TEST(unknown.status == 404);
  BOOST_TEST(unknown.json()["reason"] == "NotFound");
}

BOOST_AUTO_TEST_CASE(create_twice_is_already_exists) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto name = unique_name("dup");
  auto first = http_request(sim, "POST", schedopt_path, schedopt_body(name));
  BOOST_TEST(first.status == 201);
  auto created = first.json();
  BOOST_TEST(created["metadata"]["generation"] == 1);
  BOOST_TEST(!created["metadata"]["uid"].get<std::string>().empty());
  auto second = http_request(sim, "POST", schedopt_path, schedopt_body(name));
  BOOST_TEST(second.status == 409);
  auto status = second.json();
  BOOST_TEST(status["reason"] == "AlreadyExists");
  BOOST_TEST(status["message"] == "schedulingoptimizations.stork.libopenstorage.org \"" + name
                                    + "\" already exists");
  BOOST_TEST(status["details"]["kind"] == "schedulingoptimizations");
}

BOOST_AUTO_TEST_CASE(generate_name_gets_five_random_characters) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  std::string body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"gen-"}})";
  auto a = http_request(sim, "POST", "/api/v1/namespaces/default/configmaps", body);
  auto b = http_request(sim, "POST", "/api/v1/namespaces/default/configmaps", body);
  BOOST_TEST(a.status == 201);
  BOOST_TEST(b.status == 201);
  auto name_a = a.json()["metadata"]["name"].get<std::string>();
  auto name_b = b.json()["metadata"]["name"].get<std::string>();
  BOOST_TEST(name_a.size() == 9u);
  BOOST_TEST(name_a.rfind("gen-", 0) == 0u);
  BOOST_TEST(name_a != name_b);
  for (char c : name_a.substr(4))
    BOOST_TEST((std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c))));
}

BOOST_AUTO_TEST_CASE(namespace_mismatch_and_missing_namespace) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  std::string body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"other"}})";
  auto mismatch = http_request(sim, "POST", "/api/v1/namespaces/default/configmaps", body);
  BOOST_TEST(mismatch.status == 400);
  BOOST_TEST(mismatch.json()["reason"] == "BadRequest");
  auto missing = http_request(sim, "POST", "/api/v1/namespaces/no-such-ns/configmaps",
                              configmap_body("x"));
  BOOST_TEST(missing.status == 404);
  BOOST_TEST(missing.json()["message"] == "namespaces \"no-such-ns\" not found");
}

BOOST_AUTO_TEST_CASE(put_with_stale_resource_version_conflicts) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto name = unique_name("put");
  auto created = http_request(sim, "POST", schedopt_path, schedopt_body(name)).json();
  auto v1 = created;
  v1["spec"]["vmHyperconvergence"]["maxParallelMigrations"] = 3;
  auto ok = http_request(sim, "PUT", schedopt_path + "/" + name, v1.dump());
  BOOST_TEST(ok.status == 200);
  BOOST_TEST(ok.json()["metadata"]["generation"] == 2);
  auto stale = created;
  stale["spec"]["vmHyperconvergence"]["maxParallelMigrations"] = 4;
  auto conflict = http_request(sim, "PUT", schedopt_path + "/" + name, stale.dump());
  BOOST_TEST(conflict.status == 409);
  BOOST_TEST(conflict.json()
             == json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                            R"("message":"Operation cannot be fulfilled on schedulingoptimizations.stork.libopenstorage.org \")"
                            + name
                            + R"(\": the object has been modified; please apply your changes to the latest version and try again",)"
                              R"("reason":"Conflict","details":{"name":")"
                            + name
                            + R"(","group":"stork.libopenstorage.org","kind":"schedulingoptimizations"},"code":409})"));
  auto no_rv = created;
  no_rv["metadata"].erase("resourceVersion");
  auto invalid = http_request(sim, "PUT", schedopt_path + "/" + name, no_rv.dump());
  BOOST_TEST(invalid.status == 422);
  BOOST_TEST(invalid.json()["reason"] == "Invalid");
  BOOST_TEST(invalid.json()["message"]
             == "SchedulingOptimization.stork.libopenstorage.org \"" + name
                  + "\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update");
}

BOOST_AUTO_TEST_CASE(patch_flavours) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto name = unique_name("patch");
  BOOST_REQUIRE(http_request(sim, "POST", schedopt_path, schedopt_body(name)).status == 201);
  auto path = schedopt_path + "/" + name;
  auto strategic = http_request(sim, "PATCH", path, R"({"metadata":{"labels":{"a":"b"}}})",
                                "application/strategic-merge-patch+json");
  BOOST_TEST(strategic.status == 415);
  BOOST_TEST(strategic.json()["reason"] == "UnsupportedMediaType");
  BOOST_TEST(strategic.json()["message"]
             == "the body of the request was in an unknown format - accepted media types include: "
                "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
  auto merge = http_request(sim, "PATCH", path, R"({"metadata":{"labels":{"a":"b"}}})",
                            "application/merge-patch+json");
  BOOST_TEST(merge.status == 200);
  BOOST_TEST(merge.json()["metadata"]["labels"]["a"] == "b");
  BOOST_TEST(merge.json()["metadata"]["generation"] == 1);
  auto failed_test = http_request(sim, "PATCH", path,
                                  R"([{"op":"test","path":"/metadata/labels/a","value":"zzz"}])",
                                  "application/json-patch+json");
  BOOST_TEST(failed_test.status == 422);
  // Status written on the main resource is dropped; on /status it is taken.
  auto main_status = http_request(sim, "PATCH", path, R"({"status":{"stage":"Final"}})",
                                  "application/merge-patch+json");
  BOOST_TEST(main_status.status == 200);
  BOOST_TEST(!main_status.json().contains("status"));
  auto status = http_request(sim, "PATCH", path + "/status",
                             R"({"status":{"stage":"Final"},"spec":{"vmHyperconvergence":{"enabled":false}}})",
                             "application/merge-patch+json");
  BOOST_TEST(status.status == 200);
  BOOST_TEST(status.json()["status"]["stage"] == "Final");
  BOOST_TEST(status.json()["spec"]["vmHyperconvergence"]["enabled"] == true);
  auto stale = http_request(sim, "PATCH", path, R"({"metadata":{"resourceVersion":"1"}})",
                            "application/merge-patch+json");
  BOOST_TEST(stale.status == 409);
  auto core_strategic = http_request(sim, "PATCH", "/api/v1/namespaces/default", R"({"metadata":{"labels":{"x":"y"}}})",
                                     "application/strategic-merge-patch+json");
  BOOST_TEST(core_strategic.status == 200);
  BOOST_TEST(core_strategic.json()["metadata"]["labels"]["x"] == "y");
}

BOOST_AUTO_TEST_CASE(server_side_apply_creates_then_merges) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto name = unique_name("ssa");
  std::string yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n  a: \"1\"\n";
  auto path = "/api/v1/namespaces/default/configmaps/" + name + "?fieldManager=test";
  auto created = http_request(sim, "PATCH", path, yaml, "application/apply-patch+yaml");
  BOOST_TEST(created.status == 201);
  BOOST_TEST(created.json()["data"]["a"] == "1");
  // kube-apiserver refuses a configuration that does not name its type, and drops what
  // the same manager applied before and applies no more; another manager's fields merge.
  auto untyped = http_request(sim, "PATCH", path, "data:\n  b: \"2\"\n", "application/apply-patch+yaml");
  BOOST_TEST(untyped.status == 400);
  BOOST_TEST(untyped.json()["message"] == "invalid object type: /, Kind=");
  auto header = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n";
  auto replaced = http_request(sim, "PATCH", path, header + "data:\n  b: \"2\"\n", "application/apply-patch+yaml");
  BOOST_TEST(replaced.status == 200);
  BOOST_TEST(replaced.json()["data"] == (json{{"b", "2"}}));
  auto other_path = "/api/v1/namespaces/default/configmaps/" + name + "?fieldManager=other";
  auto merged = http_request(sim, "PATCH", other_path, header + "data:\n  c: \"3\"\n", "application/apply-patch+yaml");
  BOOST_TEST(merged.status == 200);
  BOOST_TEST(merged.json()["data"] == (json{{"b", "2"}, {"c", "3"}}));
  BOOST_TEST(merged.json()["metadata"]["managedFields"].size() == 2u);
}

BOOST_AUTO_TEST_CASE(delete_with_finalizer_then_release) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto name = unique_name("fin");
  auto body = json::parse(configmap_body(name));
  body["metadata"]["finalizers"] = {"example.io/hold"};
  auto path = "/api/v1/namespaces/default/configmaps/" + name;
  BOOST_REQUIRE(http_request(sim, "POST", "/api/v1/namespaces/default/configmaps", body.dump()).status == 201);
  auto deleting = http_request(sim, "DELETE", path);
  BOOST_TEST(deleting.status == 200);
  BOOST_TEST(deleting.json()["metadata"].contains("deletionTimestamp"));
  BOOST_TEST(http_request(sim, "GET", path).status == 200);
  auto release = http_request(sim, "PATCH", path, R"({"metadata":{"finalizers":null}})",
                              "application/merge-patch+json");
  BOOST_TEST(release.status == 200);
  BOOST_TEST(http_request(sim, "GET", path).status == 404);
  BOOST_TEST(http_request(sim, "DELETE", path).status == 404);
}

BOOST_AUTO_TEST_CASE(discovery_documents) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto api = http_request(sim, "GET", "/api").json();
  BOOST_TEST(api["kind"] == "APIVersions");
  auto v1 = http_request(sim, "GET", "/api/v1").json();
  BOOST_TEST(v1["kind"] == "APIResourceList");
  bool node_status = false;
  for (auto& r : v1["resources"])
    node_status = node_status || r["name"] == "nodes/status";
  BOOST_TEST(node_status);
  auto groups = http_request(sim, "GET", "/apis").json();
  BOOST_TEST(groups["kind"] == "APIGroupList");
  bool stork = false;
  for (auto& g : groups["groups"])
    stork = stork || g["name"] == "stork.libopenstorage.org";
  BOOST_TEST(stork);
  auto gv = http_request(sim, "GET", "/apis/stork.libopenstorage.org/v1alpha1").json();
  BOOST_REQUIRE(gv["resources"].is_array());
  BOOST_TEST(gv["resources"][0]["name"] == "schedulingoptimizations");
  BOOST_TEST(gv["resources"][0]["namespaced"] == false);
  BOOST_TEST(gv["resources"][0]["shortNames"] == json({"schedopt"}));
  auto version = http_request(sim, "GET", "/version").json();
  BOOST_TEST(version["gitVersion"] == "v1.37.2");
  auto openapi = http_request(sim, "GET", "/openapi/v2");
  BOOST_TEST(openapi.status == 200);
  BOOST_TEST(openapi.body.empty());
}

// kube-apiserver's limits, as the differential suite measured them: annotations over
// 256 KiB (422), a body over 3 MiB (413), a v1 CRD without a schema (422).
BOOST_AUTO_TEST_CASE(what_kube_apiserver_refuses_for_its_size_or_shape) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  json annotated = {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                    {"metadata", {{"name", "annotated"}, {"annotations", {{"big", std::string(270000, 'x')}}}}}};
  auto big = http_request(sim, "POST", "/api/v1/namespaces/default/configmaps", annotated.dump());
  BOOST_TEST(big.status == 422);
  BOOST_TEST(big.json()["message"]
             == "ConfigMap \"annotated\" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes");
  BOOST_TEST(big.json()["details"]["causes"][0]["reason"] == "FieldValueTooLong");

  json huge = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "huge"}}},
               {"data", {{"big", std::string(3300000, 'y')}}}};
  auto too_large = http_request(sim, "POST", "/api/v1/namespaces/default/configmaps", huge.dump());
  BOOST_TEST(too_large.status == 413);
  BOOST_TEST(too_large.json()["message"] == "Request entity too large: limit is 3145728");
  BOOST_TEST(http_request(sim, "GET", "/api/v1/namespaces/default/configmaps/huge").status == 404);

  json schemaless = {{"apiVersion", "apiextensions.k8s.io/v1"}, {"kind", "CustomResourceDefinition"},
                     {"metadata", {{"name", "widgets.example.com"}}},
                     {"spec", {{"group", "example.com"}, {"scope", "Namespaced"},
                               {"names", {{"plural", "widgets"}, {"singular", "widget"}, {"kind", "Widget"}, {"listKind", "WidgetList"}}},
                               {"versions", json::array({{{"name", "v1"}, {"served", true}, {"storage", true}}})}}}};
  auto refused = http_request(sim, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", schemaless.dump());
  BOOST_TEST(refused.status == 422);
  BOOST_TEST(refused.json()["message"]
             == "CustomResourceDefinition.apiextensions.k8s.io \"widgets.example.com\" is invalid: "
                "spec.versions[0].schema.openAPIV3Schema: Required value");
}

// kube-apiserver's strategies: a namespace carries its name as a label; a core/v1 Event
// about a cluster-scoped object lives in default (or nowhere), never elsewhere.
BOOST_AUTO_TEST_CASE(namespaces_are_labelled_and_events_agree_with_their_object) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto ns = http_request(sim, "POST", "/api/v1/namespaces",
                         R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"labelled"}})");
  BOOST_TEST(ns.status == 201);
  BOOST_TEST(ns.json()["metadata"]["labels"]["kubernetes.io/metadata.name"] == "labelled");
  BOOST_TEST(!ns.json()["metadata"].contains("generation"));

  json event = {{"apiVersion", "v1"}, {"kind", "Event"}, {"metadata", {{"name", "req.1"}}},
                {"involvedObject", {{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
                                    {"kind", "SchedulingOptimization"}, {"name", "req"}}},
                {"reason", "Started"}, {"message", "started"}, {"type", "Normal"}};
  BOOST_TEST(http_request(sim, "POST", "/api/v1/namespaces/default/events", event.dump()).status == 201);
  event["metadata"]["name"] = "req.2";
  auto elsewhere = http_request(sim, "POST", "/api/v1/namespaces/labelled/events", event.dump());
  BOOST_TEST(elsewhere.status == 422);
  BOOST_TEST(elsewhere.json()["message"]
             == "Event \"req.2\" is invalid: involvedObject.namespace: Invalid value: \"\": does not match event.namespace");
}

BOOST_AUTO_TEST_SUITE_END()
