// The API client against schedopt-sim: writes and their error codes, paging, rate limit.
#include <boost/test/unit_test.hpp>

#include <set>

#include <nlohmann/json.hpp>

#include "k8s/metrics.hpp"
#include "model/decode.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"
#include "model/status_coalescer.hpp"
#include "sim_client_fixture.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
using schedopt::ec;
using schedopt::error_code;
using schedopt::error_message;
namespace k8s = schedopt::k8s;
namespace res = schedopt::k8s::resources;

BOOST_AUTO_TEST_CASE(api_client_writes_and_errors) {
  schedopt::test::sim_client t{{"--vmis", "4", "--nodes", "3"}};
  // generateName
  json cm{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
          {"metadata", {{"generateName", "cm-"}, {"namespace", "default"}}},
          {"data", {{"k", "v"}}}};
  auto created = t.create({res::configmaps, "default", cm.dump()});
  BOOST_REQUIRE_MESSAGE(created, error_message(created.error));
  BOOST_CHECK_EQUAL(created.value.http_status, 201);
  auto obj = json::parse(created.value.body);
  std::string name = obj["metadata"]["name"];
  BOOST_CHECK(name.rfind("cm-", 0) == 0 && name.size() > 3);
  std::string rv = obj["metadata"]["resourceVersion"];
  std::string uid = obj["metadata"]["uid"];

  // get / 404 with the server's message
  auto got = t.get({res::configmaps, "default", name, {}});
  BOOST_REQUIRE(got);
  BOOST_CHECK_EQUAL(json::parse(got.value.body)["data"]["k"], "v");
  auto missing = t.get({res::configmaps, "default", "nope", {}});
  BOOST_REQUIRE(!missing);
  BOOST_CHECK(error_code(missing.error) == ec::not_found);
  BOOST_CHECK_EQUAL(error_message(missing.error), "configmaps \"nope\" not found");
  BOOST_CHECK_EQUAL(schedopt::error_http_status(missing.error), 404);

  // 409 AlreadyExists
  json named{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}};
  auto dup = t.create({res::configmaps, "default", named.dump()});
  BOOST_REQUIRE(!dup);
  BOOST_CHECK(error_code(dup.error) == ec::already_exists);

  // PUT with a stale resourceVersion -> 409 Conflict; with the current one -> 200
  auto stale = obj;
  stale["data"]["k"] = "w";
  auto ok_put = t.call<k8s::api_response>(k8s::update_request{res::configmaps, "default", name,
                                                              stale.dump(), false});
  BOOST_REQUIRE_MESSAGE(ok_put, error_message(ok_put.error));
  auto conflict = t.call<k8s::api_response>(k8s::update_request{res::configmaps, "default", name,
                                                                stale.dump(), false});
  BOOST_REQUIRE(!conflict);
  BOOST_CHECK(error_code(conflict.error) == ec::conflict);
  BOOST_CHECK(error_message(conflict.error).find("the object has been modified")
              != std::string::npos);

  // merge patch
  auto patched = t.call<k8s::api_response>(
    k8s::patch_request{res::configmaps, "default", name, R"({"data":{"p":"q"}})", false, false});
  BOOST_REQUIRE(patched);
  BOOST_CHECK_EQUAL(json::parse(patched.value.body)["data"]["p"], "q");

  // 422: neither name nor generateName
  json nameless{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", json::object()}};
  auto invalid = t.create({res::configmaps, "default", nameless.dump()});
  BOOST_REQUIRE(!invalid);
  BOOST_CHECK(error_code(invalid.error) == ec::invalid_request);
  BOOST_CHECK_EQUAL(schedopt::error_http_status(invalid.error), 422);

  // delete with a wrong uid precondition -> 409; then a plain delete
  auto wrong = t.call<k8s::api_response>(
    k8s::delete_request{res::configmaps, "default", name, "not-the-uid", {}, {}});
  BOOST_REQUIRE(!wrong);
  BOOST_CHECK(error_code(wrong.error) == ec::conflict);
  auto del = t.call<k8s::api_response>(k8s::delete_request{res::configmaps, "default", name, uid, {}, {}});
  BOOST_REQUIRE_MESSAGE(del, error_message(del.error));
  BOOST_CHECK(error_code(t.get({res::configmaps, "default", name, {}}).error) == ec::not_found);
}

BOOST_AUTO_TEST_CASE(api_client_status_merge_patch_and_admission_message) {
  schedopt::test::sim_client t{{"--vmis", "2", "--nodes", "2"}};
  json so{{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
          {"kind", "SchedulingOptimization"},
          {"metadata", {{"name", "so-1"}}},
          {"spec", {{"vmHyperconvergence", {{"enabled", true}}}}}};
  auto created = t.create({res::scheduling_optimizations, "", so.dump()});
  BOOST_REQUIRE_MESSAGE(created, error_message(created.error));
  auto patched = t.call<k8s::api_response>(k8s::patch_request{
    res::scheduling_optimizations, "", "so-1",
    R"({"status":{"stage":"Evaluating","status":"InProgress"}})", true, false});
  BOOST_REQUIRE_MESSAGE(patched, error_message(patched.error));
  auto decoded = schedopt::decode_scheduling_optimization(patched.value.body);
  BOOST_REQUIRE(decoded.has_value());
  BOOST_CHECK_EQUAL(decoded->status.stage, schedopt::request_stage::evaluating);
  BOOST_CHECK(decoded->spec.kinds.count(schedopt::vm_hyperconvergence_kind)
              && decoded->spec.kinds.at(schedopt::vm_hyperconvergence_kind).enabled);
  // A status change through the main resource is ignored (status subresource).
  auto main_patch = t.call<k8s::api_response>(k8s::patch_request{
    res::scheduling_optimizations, "", "so-1", R"({"status":{"stage":"Final"}})", false, false});
  BOOST_REQUIRE(main_patch);
  BOOST_CHECK_EQUAL(schedopt::decode_scheduling_optimization(main_patch.value.body)->status.stage,
                    schedopt::request_stage::evaluating);

  // KubeVirt's admission message survives verbatim.
  json vmim{{"apiVersion", "kubevirt.io/v1"},
            {"kind", "VirtualMachineInstanceMigration"},
            {"metadata", {{"generateName", "schedopt-"}, {"namespace", "default"}}},
            {"spec", {{"vmiName", "no-such-vmi"}}}};
  auto rejected = t.create({res::vmims, "default", vmim.dump()});
  BOOST_REQUIRE(!rejected);
  BOOST_CHECK(error_code(rejected.error) == ec::invalid_request);
  BOOST_CHECK_EQUAL(error_message(rejected.error),
                    "admission webhook \"migration-create-validator.kubevirt.io\" denied the "
                    "request: the VMI \"default/no-such-vmi\" does not exist");
}

BOOST_AUTO_TEST_CASE(api_client_guarded_status_patch_lands_only_on_its_uid) {
  // The status writer's JSON patch through the real client: it applies to the object
  // whose uid it tests, and the answer for a re-created object of the same name reads as
  // "gone" to the writer's classification, not as a schema rejection.
  schedopt::test::sim_client t{{"--vmis", "2", "--nodes", "2"}};
  json so{{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
          {"kind", "SchedulingOptimization"},
          {"metadata", {{"name", "so-g"}}},
          {"spec", {{"vmHyperconvergence", {{"enabled", true}}}}}};
  auto first = t.create({res::scheduling_optimizations, "", so.dump()});
  BOOST_REQUIRE_MESSAGE(first, error_message(first.error));
  std::string old_uid = json::parse(first.value.body)["metadata"]["uid"];
  schedopt::status_coalescer c(1s, 30s, 10);
  c.set_stage(schedopt::request_stage::evaluating, schedopt::request_status::in_progress,
              *schedopt::parse_rfc3339("2026-11-30T12:00:00Z"));
  auto patch = c.take_patch(*schedopt::parse_rfc3339("2026-11-30T12:00:01Z"), old_uid);
  auto landed = t.call<k8s::api_response>(
    k8s::patch_request{res::scheduling_optimizations, "", "so-g", patch, true, true});
  BOOST_REQUIRE_MESSAGE(landed, error_message(landed.error));
  BOOST_CHECK_EQUAL(schedopt::decode_scheduling_optimization(landed.value.body)->status.stage,
                    schedopt::request_stage::evaluating);

  auto gone = t.call<k8s::api_response>(k8s::delete_request{res::scheduling_optimizations, "", "so-g", {}, {}, {}});
  BOOST_REQUIRE_MESSAGE(gone, error_message(gone.error));
  auto second = t.create({res::scheduling_optimizations, "", so.dump()});
  BOOST_REQUIRE_MESSAGE(second, error_message(second.error));
  auto refused = t.call<k8s::api_response>(
    k8s::patch_request{res::scheduling_optimizations, "", "so-g", patch, true, true});
  BOOST_REQUIRE(!refused);
  BOOST_CHECK_EQUAL(schedopt::error_http_status(refused.error), 422);
  BOOST_CHECK(schedopt::classify_patch_failure(error_code(refused.error), schedopt::error_http_status(refused.error),
                                               error_message(refused.error))
              == schedopt::patch_failure::gone);
  auto now = t.call<k8s::api_response>(k8s::get_request{res::scheduling_optimizations, "", "so-g", ""});
  BOOST_REQUIRE(now);
  BOOST_CHECK_EQUAL(schedopt::decode_scheduling_optimization(now.value.body)->status.stage,
                    schedopt::request_stage::none);
}

BOOST_AUTO_TEST_CASE(api_client_pages_through_thousands_of_objects) {
  schedopt::test::sim_client t{{"--vmis", "3000", "--nodes", "20"}};
  k8s::list_request req;
  req.res = res::vmis;
  req.limit = 500;
  auto pages = t.list(req);
  BOOST_REQUIRE_MESSAGE(pages, error_message(pages.error));
  BOOST_CHECK_EQUAL(pages.value.pages.size(), 6u);
  BOOST_CHECK(!pages.value.resource_version.empty());
  std::set<std::string> names;
  for (auto& page : pages.value.pages) {
    auto list = schedopt::decode_list<schedopt::virtual_machine_instance>(page);
    BOOST_REQUIRE(list.has_value());
    BOOST_CHECK_LE(list->items.size(), 500u);
    for (auto& v : list->items)
      names.insert(v.metadata.namespace_ + "/" + v.metadata.name);
  }
  BOOST_CHECK_EQUAL(names.size(), 3000u);
  // One page only.
  req.all_pages = false;
  auto first = t.list(req);
  BOOST_REQUIRE(first);
  BOOST_CHECK_EQUAL(first.value.pages.size(), 1u);
}

BOOST_AUTO_TEST_CASE(api_client_rate_limit_lower_bound) {
  schedopt::api_client_options opts;
  opts.qps = 20;
  opts.burst = 5;
  schedopt::test::sim_client t{{"--vmis", "1", "--nodes", "2"}, opts};
  caf::scoped_actor self{*t.env.sys};
  const int n = 45;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i)
    self->send(t.client, k8s::get_request{res::nodes, "", "missing", {}});
  int answers = 0;
  self->receive_for(answers, n)([&](k8s::api_response&) {}, [&](caf::error&) {});
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  BOOST_TEST_MESSAGE("45 requests at qps 20 burst 5 took " << took.count() << "s");
  BOOST_CHECK_GE(took.count(), (n - 5) / 20.0 - 0.05);
}

// A list is one token of the rate limit, whatever its pages: at qps 2 and burst 1 a
// 10-page list paced page by page would take 4.5 s; single requests are still paced.
BOOST_AUTO_TEST_CASE(api_client_charges_a_list_one_token) {
  schedopt::api_client_options opts;
  opts.qps = 2;
  opts.burst = 1;
  schedopt::test::sim_client t{{"--vmis", "1000", "--nodes", "2"}, opts};
  k8s::list_request req;
  req.res = res::vmis;
  req.limit = 100;
  auto start = std::chrono::steady_clock::now();
  auto pages = t.list(req);
  std::chrono::duration<double> listed = std::chrono::steady_clock::now() - start;
  BOOST_REQUIRE_MESSAGE(pages, error_message(pages.error));
  BOOST_CHECK_EQUAL(pages.value.pages.size(), 10u);
  BOOST_TEST_MESSAGE("10-page list at qps 2 burst 1 took " << listed.count() << "s");
  BOOST_CHECK_LT(listed.count(), 3.0);
  // Single requests are still paced: of three gets, the bucket (one token at most) lets
  // one go at once and the others 0.5 s apart.
  caf::scoped_actor self{*t.env.sys};
  start = std::chrono::steady_clock::now();
  for (int i = 0; i < 3; ++i)
    self->send(t.client, k8s::get_request{res::nodes, "", "missing", {}});
  int answers = 0;
  self->receive_for(answers, 3)([&](k8s::api_response&) {}, [&](caf::error&) {});
  std::chrono::duration<double> got = std::chrono::steady_clock::now() - start;
  BOOST_CHECK_GE(got.count(), 2 / 2.0 - 0.05);
}

BOOST_AUTO_TEST_CASE(api_client_rejects_when_queue_is_full) {
  schedopt::api_client_options opts;
  opts.qps = 1;
  opts.burst = 1;
  opts.max_pending = 3;
  schedopt::test::sim_client t{{"--vmis", "1", "--nodes", "2"}, opts};
  caf::scoped_actor self{*t.env.sys};
  for (int i = 0; i < 10; ++i)
    self->send(t.client, k8s::get_request{res::nodes, "", "missing", {}});
  int rejected = 0;
  int answers = 0;
  self->receive_for(answers, 10)([&](k8s::api_response&) {},
                                 [&](caf::error& e) {
                                   if (error_code(e) == ec::too_many_requests)
                                     ++rejected;
                                 });
  BOOST_CHECK_GE(rejected, 5);
}

BOOST_AUTO_TEST_CASE(api_client_retries_through_injected_faults) {
  schedopt::test::sim_client t{{"--vmis", "20", "--nodes", "3", "--fault-5xx-rate", "0.3",
                                "--fault-429-rate", "0.1"}};
  int ok = 0;
  for (int i = 0; i < 30; ++i) {
    k8s::list_request req;
    req.res = res::vmis;
    req.limit = 5;
    if (t.list(req))
      ++ok;
  }
  // Each page gets 5 retries: a page is lost only after 6 faults in a row (0.4^6, ~0.4 %), so
  // about one list in 60 fails. The simulator rolls faults from its --seed (default 1), so
  // this sequential client sees the same faults on every run.
  BOOST_CHECK_GE(ok, 28);
  auto& m = schedopt::k8s::default_metrics();
  BOOST_CHECK_GT(m.value("schedopt_api_requests_total",
                         {{"verb", "list"}, {"resource", "virtualmachineinstances"}, {"code", "429"}})
                   + m.value("schedopt_api_requests_total",
                             {{"verb", "list"}, {"resource", "virtualmachineinstances"}, {"code", "500"}})
                   + m.value("schedopt_api_requests_total",
                             {{"verb", "list"}, {"resource", "virtualmachineinstances"}, {"code", "503"}}),
                 0);
}
