// Wire-level schema enforcement on SchedulingOptimizations: 422 Invalid with
// kube-apiserver's causes, pruning, fieldValidation Strict/Warn/Ignore on create, update
// and patch of the main resource and /status, and stock kubectl seeing the refusals.
#include <boost/test/unit_test.hpp>

#include <fstream>

#include "kubectl_runner.hpp"
#include "wire_fixture.hpp"
#include "wire_http.hpp"

using namespace schedopt::test;
using nlohmann::json;

namespace {

json request_body(const std::string& name, const json& hyperconvergence) {
  return {{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
          {"kind", "SchedulingOptimization"},
          {"metadata", {{"name", name}}},
          {"spec", {{"vmHyperconvergence", hyperconvergence}}}};
}

const std::string group = "stork.libopenstorage.org";
const std::string qualified = "SchedulingOptimization.stork.libopenstorage.org";

std::string min_parallel_text() {
  return "Invalid value: 0: spec.vmHyperconvergence.maxParallelMigrations in body should be greater "
         "than or equal to 1";
}

std::string with_validation(const std::string& path, const std::string& directive) {
  return path + "?fieldValidation=" + directive;
}

} // namespace

BOOST_AUTO_TEST_SUITE(wire_schema)

BOOST_AUTO_TEST_CASE(create_with_a_bad_field_is_422_invalid) {
  auto& sim = shared_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto name = unique_name("bad-parallel");
  auto reply = http_request(sim, "POST", schedopt_path,
                            request_body(name, {{"enabled", true}, {"maxParallelMigrations", 0}}).dump());
  BOOST_TEST(reply.status == 422);
  BOOST_TEST(reply.json()
             == json({{"kind", "Status"},
                      {"apiVersion", "v1"},
                      {"metadata", json::object()},
                      {"status", "Failure"},
                      {"message", qualified + " \"" + name + "\" is invalid: "
                                    "spec.vmHyperconvergence.maxParallelMigrations: " + min_parallel_text()},
                      {"reason", "Invalid"},
                      {"details",
                       {{"name", name},
                        {"group", group},
                        {"kind", "SchedulingOptimization"},
                        {"causes", {{{"reason", "FieldValueInvalid"},
                                     {"message", min_parallel_text()},
                                     {"field", "spec.vmHyperconvergence.maxParallelMigrations"}}}}}},
                      {"code", 422}}),
             reply.body);
  BOOST_TEST(http_request(sim, "GET", schedopt_path + "/" + name).status == 404);
}

BOOST_AUTO_TEST_CASE(several_bad_fields_are_bracketed) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto name = unique_name("bad-all");
  auto reply = http_request(sim, "POST", schedopt_path,
                            request_body(name, {{"enabled", "yes"}, {"coolOffPeriod", "ten minutes"},
                                                {"maxParallelMigrations", 0}})
                              .dump());
  BOOST_TEST(reply.status == 422);
  auto status = reply.json();
  auto causes = status["details"]["causes"];
  BOOST_REQUIRE_EQUAL(causes.size(), 3u);
  BOOST_TEST(causes[0]["field"] == "spec.vmHyperconvergence.coolOffPeriod");
  BOOST_TEST(causes[0]["reason"] == "FieldValueInvalid");
  BOOST_TEST(causes[0]["message"].get<std::string>().rfind(
               "Invalid value: \"ten minutes\": spec.vmHyperconvergence.coolOffPeriod in body should match '^(0|", 0)
             == 0);
  BOOST_TEST(causes[1]
             == json({{"reason", "FieldValueTypeInvalid"},
                      {"message", "Invalid value: \"string\": spec.vmHyperconvergence.enabled in body must "
                                  "be of type boolean: \"string\""},
                      {"field", "spec.vmHyperconvergence.enabled"}}));
  BOOST_TEST(causes[2]["message"] == min_parallel_text());
  auto message = status["message"].get<std::string>();
  BOOST_TEST(message.rfind(qualified + " \"" + name + "\" is invalid: [spec.vmHyperconvergence.coolOffPeriod: ", 0) == 0,
             message);
  BOOST_TEST(message.back() == ']');
}

BOOST_AUTO_TEST_CASE(unknown_fields_warn_by_default_strict_refuses_ignore_prunes) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto body = [](const std::string& name) {
    auto b = request_body(name, {{"enabled", true}, {"foo", 1}});
    b["spec"]["bar"] = "x";
    return b.dump();
  };
  auto warned = unique_name("warn");
  auto reply = http_request(sim, "POST", schedopt_path, body(warned));
  BOOST_TEST(reply.status == 201);
  BOOST_TEST(reply.has_header("Warning: 299 - \"unknown field \\\"spec.bar\\\"\""), reply.headers);
  BOOST_TEST(reply.has_header("Warning: 299 - \"unknown field \\\"spec.vmHyperconvergence.foo\\\"\""),
             reply.headers);
  BOOST_TEST(reply.json()["spec"] == json({{"vmHyperconvergence", {{"enabled", true}}}}));

  auto strict = unique_name("strict");
  auto refused = http_request(sim, "POST", with_validation(schedopt_path, "Strict"), body(strict));
  BOOST_TEST(refused.status == 400);
  BOOST_TEST(refused.json()["reason"] == "BadRequest");
  BOOST_TEST(refused.json()["message"]
             == "SchedulingOptimization in version \"v1alpha1\" cannot be handled as a "
                "SchedulingOptimization: strict decoding error: unknown field \"spec.bar\", unknown "
                "field \"spec.vmHyperconvergence.foo\"");
  BOOST_TEST(http_request(sim, "GET", schedopt_path + "/" + strict).status == 404);

  auto ignored = unique_name("ignore");
  auto quiet = http_request(sim, "POST", with_validation(schedopt_path, "Ignore"), body(ignored));
  BOOST_TEST(quiet.status == 201);
  BOOST_TEST(!quiet.has_header("Warning:"), quiet.headers);
  auto stored = http_request(sim, "GET", schedopt_path + "/" + ignored).json();
  BOOST_TEST(stored["spec"] == json({{"vmHyperconvergence", {{"enabled", true}}}}));

  auto bogus = http_request(sim, "POST", with_validation(schedopt_path, "Sometimes"), body(unique_name("x")));
  BOOST_TEST(bogus.status == 422);
  BOOST_TEST(bogus.json()["message"]
             == "CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: "
                "\"Sometimes\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"");
}

BOOST_AUTO_TEST_CASE(update_and_patch_are_judged_after_they_apply) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto name = unique_name("judged");
  auto path = schedopt_path + "/" + name;
  auto created = http_request(sim, "POST", schedopt_path,
                              request_body(name, {{"enabled", true}, {"maxParallelMigrations", 2}}).dump());
  BOOST_REQUIRE_EQUAL(created.status, 201);
  // Merge patch: the patched object is what is judged.
  auto patch = http_request(sim, "PATCH", path, R"({"spec":{"vmHyperconvergence":{"maxParallelMigrations":0}}})",
                            "application/merge-patch+json");
  BOOST_TEST(patch.status == 422);
  BOOST_TEST(patch.json()["details"]["causes"][0]["message"] == min_parallel_text());
  BOOST_TEST(patch.json()["details"]["name"] == name);
  // JSON patch.
  auto json_patch = http_request(sim, "PATCH", path,
                                 R"([{"op":"replace","path":"/spec/vmHyperconvergence/enabled","value":"yes"}])",
                                 "application/json-patch+json");
  BOOST_TEST(json_patch.status == 422);
  BOOST_TEST(json_patch.json()["details"]["causes"][0]["field"] == "spec.vmHyperconvergence.enabled");
  // PUT.
  auto current = http_request(sim, "GET", path).json();
  current["spec"]["vmHyperconvergence"]["coolOffPeriod"] = "ten minutes";
  auto put = http_request(sim, "PUT", path, current.dump());
  BOOST_TEST(put.status == 422);
  BOOST_TEST(put.json()["details"]["causes"][0]["field"] == "spec.vmHyperconvergence.coolOffPeriod");
  // Unknown fields in a patch: Strict is a 422 on "patch" of an unnamed object.
  auto strict = http_request(sim, "PATCH", with_validation(path, "Strict"), R"({"spec":{"foo":1}})",
                             "application/merge-patch+json");
  BOOST_TEST(strict.status == 422);
  auto message = strict.json()["message"].get<std::string>();
  BOOST_TEST(message.rfind(" \"\" is invalid: patch: Invalid value: \"{", 0) == 0, message);
  BOOST_TEST(message.find("\": strict decoding error: unknown field \"spec.foo\"") != std::string::npos, message);
  BOOST_TEST(strict.json()["details"]["causes"][0]["field"] == "patch");
  BOOST_TEST(!strict.json()["details"].contains("name"));
  auto warned = http_request(sim, "PATCH", path, R"({"spec":{"foo":1}})", "application/merge-patch+json");
  BOOST_TEST(warned.status == 200);
  BOOST_TEST(warned.has_header("Warning: 299 - \"unknown field \\\"spec.foo\\\"\""), warned.headers);
  BOOST_TEST(!warned.json()["spec"].contains("foo"));
  // Strict PUT with an unknown field is a 400 from decoding.
  current = http_request(sim, "GET", path).json();
  current["spec"]["foo"] = 1;
  auto strict_put = http_request(sim, "PUT", with_validation(path, "Strict"), current.dump());
  BOOST_TEST(strict_put.status == 400);
  BOOST_TEST(strict_put.json()["message"].get<std::string>().find("unknown field \"spec.foo\"")
             != std::string::npos);
  // A good change still goes through.
  auto good = http_request(sim, "PATCH", path, R"({"spec":{"vmHyperconvergence":{"maxParallelMigrations":5}}})",
                           "application/merge-patch+json");
  BOOST_TEST(good.status == 200);
  BOOST_TEST(good.json()["spec"]["vmHyperconvergence"]["maxParallelMigrations"] == 5);
}

BOOST_AUTO_TEST_CASE(status_writes_are_judged_on_the_status) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto name = unique_name("status");
  auto path = schedopt_path + "/" + name;
  BOOST_REQUIRE_EQUAL(http_request(sim, "POST", schedopt_path, request_body(name, {{"enabled", true}}).dump()).status,
                      201);
  auto bad = http_request(sim, "PATCH", path + "/status",
                          R"({"status":{"stage":"Sideways","vmHyperconvergence":{"failed":-2}}})",
                          "application/merge-patch+json");
  BOOST_TEST(bad.status == 422);
  auto causes = bad.json()["details"]["causes"];
  BOOST_REQUIRE_EQUAL(causes.size(), 2u);
  BOOST_TEST(causes[0]["field"] == "status.stage");
  BOOST_TEST(causes[0]["reason"] == "FieldValueNotSupported");
  BOOST_TEST(causes[1]
             == json({{"reason", "FieldValueInvalid"},
                      {"message", "Invalid value: -2: vmHyperconvergence.failed in body should be greater "
                                  "than or equal to 0"},
                      {"field", "status.vmHyperconvergence.failed"}}));
  // Unknown status fields are pruned with a warning; the write lands.
  auto good = http_request(sim, "PATCH", path + "/status",
                           R"({"status":{"stage":"Final","status":"Successful","mood":"fine"}})",
                           "application/merge-patch+json");
  BOOST_TEST(good.status == 200, good.body);
  BOOST_TEST(good.has_header("Warning: 299 - \"unknown field \\\"status.mood\\\"\""), good.headers);
  BOOST_TEST(good.json()["status"] == json({{"stage", "Final"}, {"status", "Successful"}}));
  // PUT /status with a bad detail.
  auto current = good.json();
  current["status"]["vmHyperconvergence"] = {{"details", {{{"name", "vm"}, {"status", "Lost"}}}}};
  auto put = http_request(sim, "PUT", path + "/status", current.dump());
  BOOST_TEST(put.status == 422);
  auto put_causes = put.json()["details"]["causes"];
  BOOST_REQUIRE_EQUAL(put_causes.size(), 2u);
  BOOST_TEST(put_causes[0]["field"] == "status.vmHyperconvergence.details[0].status");
  BOOST_TEST(put_causes[1] == json({{"reason", "FieldValueRequired"},
                                    {"message", "Required value"},
                                    {"field", "status.vmHyperconvergence.details[0].namespace"}}));
}

BOOST_AUTO_TEST_CASE(kubectl_sees_the_refusals) {
  auto binaries = kubectl_binaries();
  if (binaries.empty()) {
    BOOST_TEST_MESSAGE("SKIPPED: no kubectl on PATH");
    return;
  }
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  struct bad_case {
    std::string field_yaml;
    std::string expected;
  };
  std::vector<bad_case> cases = {
    {"    maxParallelMigrations: 0\n",
     "spec.vmHyperconvergence.maxParallelMigrations: " + min_parallel_text()},
    {"    enabled: \"yes\"\n",
     "spec.vmHyperconvergence.enabled: Invalid value: \"string\": spec.vmHyperconvergence.enabled in body "
     "must be of type boolean: \"string\""},
    {"    coolOffPeriod: ten minutes\n",
     "spec.vmHyperconvergence.coolOffPeriod: Invalid value: \"ten minutes\": "
     "spec.vmHyperconvergence.coolOffPeriod in body should match '^(0|"}};
  for (auto& kubectl : binaries) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      auto name = unique_name("kubectl-bad");
      auto file = sim.dir() + "/" + name + ".yaml";
      std::ofstream(file) << "apiVersion: stork.libopenstorage.org/v1alpha1\n"
                             "kind: SchedulingOptimization\n"
                             "metadata:\n"
                             "  name: " + name + "\n"
                             "spec:\n"
                             "  vmHyperconvergence:\n" + cases[i].field_yaml;
      for (auto verb : {"create", "apply"}) {
        BOOST_TEST_CONTEXT("kubectl " << kubectl.label << " " << verb << " case " << i) {
          auto out = run_kubectl(kubectl, sim, std::string(verb) + " -f " + file);
          BOOST_TEST(out.exit_code != 0, out.output);
          BOOST_TEST(out.output.find("The SchedulingOptimization \"" + name + "\" is invalid") != std::string::npos,
                     out.output);
          BOOST_TEST(out.output.find(cases[i].expected) != std::string::npos, out.output);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
