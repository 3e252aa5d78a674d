// The largest status the controller can write fits the CRD schema the simulator enforces:
// built by the controller's own status_coalescer (details capped at
// maxNonHyperconvergedPerRun, reasons at their 256-byte cap, every counter set) and sent
// through /status by the API client.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "config/settings.hpp"
#include "model/decode.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"
#include "model/reason.hpp"
#include "model/status_coalescer.hpp"
#include "sim_client_fixture.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
using schedopt::error_message;
namespace k8s = schedopt::k8s;
namespace res = schedopt::k8s::resources;

namespace {

/// A DNS-1123 label of `n` characters (names and namespaces at their longest).
std::string label(const std::string& stem, std::size_t n) {
  std::string out = stem;
  while (out.size() < n)
    out += 'x';
  return out.substr(0, n);
}

/// The controller's status after `results` per-VM results under a cap of `cap` details.
std::string largest_status_patch(std::size_t cap, std::size_t results, const std::string& uid) {
  auto now = std::chrono::system_clock::now();
  schedopt::status_coalescer c(1s, 30s, cap);
  c.set_stage(schedopt::request_stage::evaluating, schedopt::request_status::in_progress, now);
  c.set_observed_generation(std::numeric_limits<int32_t>::max());
  c.set_stage(schedopt::request_stage::migrating, schedopt::request_status::in_progress, now);
  const std::string long_detail(1000, 'd');
  const schedopt::detail_status statuses[] = {schedopt::detail_status::skipped,
                                              schedopt::detail_status::failed,
                                              schedopt::detail_status::successful};
  for (std::size_t i = 0; i < results; ++i) {
    schedopt::kind_detail d;
    d.namespace_ = label("ns-" + std::to_string(i) + "-", 63);
    d.name = label("vm-" + std::to_string(i) + "-", 253);
    d.status = statuses[i % 3];
    if (d.status != schedopt::detail_status::successful)
      d.reason = schedopt::make_reason(schedopt::reason_kind::migration_run_failed,
                                       "vmim=" + d.namespace_ + "/mig-" + long_detail);
    c.add_result(schedopt::vm_hyperconvergence_kind, d);
  }
  c.finish(schedopt::request_status::partial_success,
           "some candidates failed; " + std::string(4000, 'r'), now);
  return c.take_patch(now, uid);
}

} // namespace

BOOST_AUTO_TEST_CASE(largest_controller_status_fits_the_enforced_schema) {
  schedopt::test::sim_client t{{"--vmis", "2", "--nodes", "2"}};
  const std::size_t cap = static_cast<std::size_t>(schedopt::settings{}.max_non_hyperconverged_per_run);
  for (std::size_t run_cap : {cap, cap * 10}) {
    BOOST_TEST_CONTEXT("details cap " << run_cap) {
      auto name = "largest-" + std::to_string(run_cap);
      json so{{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
              {"kind", "SchedulingOptimization"},
              {"metadata", {{"name", name}}},
              {"spec", {{"vmHyperconvergence", {{"enabled", true}}}}}};
      auto created = t.create({res::scheduling_optimizations, "", so.dump()});
      BOOST_REQUIRE_MESSAGE(created, error_message(created.error));
      auto uid = json::parse(created.value.body)["metadata"]["uid"].get<std::string>();
      auto patch = largest_status_patch(run_cap, run_cap * 3, uid);
      auto ops = json::parse(patch); // [test /metadata/uid, add /status]
      BOOST_REQUIRE_EQUAL(ops.size(), 2u);
      auto sent = ops[1]["value"];
      BOOST_REQUIRE_EQUAL(sent["vmHyperconvergence"]["details"].size(), run_cap);
      BOOST_TEST(sent["vmHyperconvergence"]["details"][0]["reason"].get<std::string>().size()
                 == schedopt::max_reason_bytes);
      auto patched = t.call<k8s::api_response>(
        k8s::patch_request{res::scheduling_optimizations, "", name, patch, true, true});
      BOOST_REQUIRE_MESSAGE(patched, error_message(patched.error));
      auto stored = json::parse(patched.value.body)["status"];
      BOOST_TEST(stored == sent, "the schema pruned or changed the status");
      auto decoded = schedopt::decode_scheduling_optimization(patched.value.body);
      BOOST_REQUIRE(decoded.has_value());
      BOOST_TEST(decoded->status.kinds.at(schedopt::vm_hyperconvergence_kind).failed == static_cast<int64_t>(run_cap));
    }
  }
}
