// docs/design.md §3.6 migration outcomes that fail: KubeVirt reports Failed (MigrationRunFailed), a
// VMIM not final within migrationTimeout (MigrationTimedOut, the VMIM deleted) and a
// create that KubeVirt's admission rejects (MigrationCreateFailed).
#include <regex>

#include <boost/test/unit_test.hpp>

#include "e2e/e2e_fixture.hpp"

using namespace schedopt::e2e;

namespace {

std::string failed_reason(long long n) {
  return std::to_string(n) + (n == 1 ? " candidate outstanding: " : " candidates outstanding: ")
         + std::to_string(n) + " failed";
}

} // namespace

BOOST_AUTO_TEST_SUITE(failures)

BOOST_AUTO_TEST_CASE(failed_migrations_make_the_request_failed) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "20", "--misplaced", "0.4", "--seed", "13",
                              "--migration-failure-rate", "1.0", "--migration-duration", "300ms",
                              "--parallel-migrations-per-cluster", "10"});
  auto expected = migratable_candidates(s.truth());
  BOOST_REQUIRE(expected.size() >= 3);
  s.start_controller();
  s.create_request("doomed", scenario::enabled_spec());
  auto r = s.wait_final("doomed");
  long long n = (long long)expected.size();
  BOOST_TEST(status_of_request(r) == "Failed");
  BOOST_TEST(reason_of_request(r) == failed_reason(n));
  BOOST_TEST(counter(r, "failed") == n);
  BOOST_TEST(counter(r, "successful") == 0);
  BOOST_TEST(counter(r, "skipped") == 0);
  auto details = details_by_vm(r);
  for (auto& t : expected)
    BOOST_TEST_CONTEXT("vm " << t.key()) {
      BOOST_REQUIRE(details.count(t.key()) == 1);
      BOOST_TEST(details[t.key()].value("status", "") == "Failed");
      auto reason = details[t.key()].value("reason", "");
      std::smatch m;
      std::regex re("^MigrationRunFailed: vmim=" + t.ns + "/(" + t.name + "-schedopt-[a-z0-9]+): .+$");
      BOOST_REQUIRE_MESSAGE(std::regex_match(reason, m, re), "reason: " + reason);
      auto vmim = get(s.sim(), vmims_in(t.ns) + "/" + m[1].str());
      BOOST_TEST(vmim["spec"]["vmiName"].get<std::string>() == t.name);
      BOOST_TEST(vmim.value("/status/phase"_json_pointer, std::string()) == "Failed");
    }
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_CASE(migrations_not_final_in_time_are_deleted_and_failed) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "12", "--misplaced", "0.3", "--seed", "17",
                              "--migration-duration", "60s", "--parallel-migrations-per-cluster", "10"});
  auto expected = migratable_candidates(s.truth());
  BOOST_REQUIRE(expected.size() >= 2);
  s.start_controller({"--migration-timeout", "2s"});
  s.create_request("slow", scenario::enabled_spec());
  auto r = s.wait_final("slow");
  long long n = (long long)expected.size();
  BOOST_TEST(status_of_request(r) == "Failed");
  BOOST_TEST(reason_of_request(r) == failed_reason(n));
  BOOST_TEST(counter(r, "failed") == n);
  BOOST_TEST(counter(r, "successful") == 0);
  auto details = details_by_vm(r);
  for (auto& t : expected)
    BOOST_TEST_CONTEXT("vm " << t.key()) {
      BOOST_REQUIRE(details.count(t.key()) == 1);
      BOOST_TEST(details[t.key()].value("status", "") == "Failed");
      auto reason = details[t.key()].value("reason", "");
      std::smatch m;
      std::regex re("^MigrationTimedOut: vmim=" + t.ns + "/(" + t.name + "-schedopt-[a-z0-9]+): not final after 2s$");
      BOOST_REQUIRE_MESSAGE(std::regex_match(reason, m, re), "reason: " + reason);
      auto path = vmims_in(t.ns) + "/" + m[1].str();
      BOOST_TEST_MESSAGE("waiting for " << path << " to be deleted");
      BOOST_TEST(eventually([&] { return status_of(s.sim(), "GET", path) == 404; }, std::chrono::seconds(15)));
    }
  BOOST_TEST(s.controller().terminate() == 0);
}

// A VM that stops being live-migratable between evaluation and its turn (disks changed
// while it waited for a parallelism slot): KubeVirt's admission rejects the VMIM and the
// API's message becomes the detail.
BOOST_AUTO_TEST_CASE(a_create_rejected_by_admission_fails_that_vm_with_the_api_message) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "20", "--misplaced", "0.4", "--seed", "23",
                              "--migration-duration", "3s", "--parallel-migrations-per-cluster", "10"});
  auto expected = migratable_candidates(s.truth());
  BOOST_REQUIRE(expected.size() >= 3);
  s.start_controller();
  s.create_request("raced", scenario::enabled_spec({{"maxParallelMigrations", 1}}));
  json first;
  BOOST_REQUIRE(eventually(
    [&] {
      auto vmims = s.schedopt_vmims();
      if (vmims.empty())
        return false;
      first = vmims.at(0);
      return true;
    },
    final_timeout, std::chrono::milliseconds(20)));
  std::string first_vm = first["metadata"]["namespace"].get<std::string>() + "/"
                         + first["spec"]["vmiName"].get<std::string>();
  // The others wait for the one slot (3 s): pin their disks now.
  const std::string message = "cannot migrate VMI: PVC data is not shared";
  json pinned = {{"status", {{"conditions", json::array({{{"type", "LiveMigratable"},
                                                          {"status", "False"},
                                                          {"reason", "DisksNotLiveMigratable"},
                                                          {"message", message}}})}}}};
  for (auto& t : expected)
    if (t.key() != first_vm)
      merge_patch(s.sim(), "/apis/kubevirt.io/v1/namespaces/" + t.ns + "/virtualmachineinstances/" + t.name,
                  pinned);
  auto r = s.wait_final("raced");
  long long n = (long long)expected.size();
  BOOST_TEST(status_of_request(r) == "PartialSuccess"); // one succeeded (docs/design.md §1.5)
  BOOST_TEST(reason_of_request(r) == failed_reason(n - 1));
  BOOST_TEST(counter(r, "successful") == 1);
  BOOST_TEST(counter(r, "failed") == n - 1);
  BOOST_TEST(counter(r, "skipped") == 0);
  auto details = details_by_vm(r);
  const std::string want = "MigrationCreateFailed: admission webhook \"migration-create-validator.kubevirt.io\" "
                           "denied the request: Cannot migrate VMI, Reason: DisksNotLiveMigratable, Message: "
                           + message;
  for (auto& t : expected)
    BOOST_TEST_CONTEXT("vm " << t.key()) {
      BOOST_REQUIRE(details.count(t.key()) == 1);
      if (t.key() == first_vm) {
        BOOST_TEST(details[t.key()].value("status", "") == "Successful");
      } else {
        BOOST_TEST(details[t.key()].value("status", "") == "Failed");
        BOOST_TEST(details[t.key()].value("reason", "") == want);
      }
    }
  BOOST_TEST(s.schedopt_vmims().size() == 1u); // nothing was created for the rejected ones
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
