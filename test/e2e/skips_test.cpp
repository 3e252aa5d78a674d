// docs/design.md §2.6 filters end to end: NotLiveMigratable, MigrationInProgress, CoolingOff,
// NoTargetNode and EvaluationError skips, each with its exact detail reason and counter.
#include <ctime>

#include <boost/test/unit_test.hpp>

#include "e2e/e2e_fixture.hpp"

using namespace schedopt::e2e;

namespace {

std::string outstanding_reason(long long left, const std::string& parts) {
  return std::to_string(left) + (left == 1 ? " candidate outstanding: " : " candidates outstanding: ") + parts;
}

std::string first_claim(const sim_process& sim, const vmi_truth& t) {
  auto vmi = get(sim, "/apis/kubevirt.io/v1/namespaces/" + t.ns + "/virtualmachineinstances/" + t.name);
  for (auto& vol : vmi["spec"]["volumes"]) {
    auto claim = vol.value("/persistentVolumeClaim/claimName"_json_pointer, std::string());
    if (claim.empty())
      claim = vol.value("/dataVolume/name"_json_pointer, std::string());
    if (!claim.empty())
      return claim;
  }
  return {};
}

} // namespace

BOOST_AUTO_TEST_SUITE(skips)

BOOST_AUTO_TEST_CASE(not_live_migratable_candidates_are_skipped_with_the_condition_reason) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "20", "--misplaced", "0.4",
                              "--not-migratable", "1.0", "--seed", "5"});
  auto truth = s.truth();
  std::vector<vmi_truth> misplaced;
  for (auto& t : truth)
    if (t.misplaced)
      misplaced.push_back(t);
  BOOST_REQUIRE(misplaced.size() >= 3);
  s.start_controller();
  s.create_request("pinned", scenario::enabled_spec());
  auto r = s.wait_final("pinned");
  long long n = (long long)misplaced.size();
  BOOST_TEST(status_of_request(r) == "PartialSuccess");
  BOOST_TEST(reason_of_request(r) == outstanding_reason(n, std::to_string(n) + " skipped"));
  BOOST_TEST(counter(r, "skipped") == n);
  BOOST_TEST(counter(r, "successful") == 0);
  BOOST_TEST(counter(r, "failed") == 0);
  auto details = details_by_vm(r);
  BOOST_TEST(details.size() == misplaced.size());
  for (auto& t : misplaced)
    BOOST_TEST_CONTEXT("vm " << t.key()) {
      BOOST_REQUIRE(details.count(t.key()) == 1);
      BOOST_TEST(details[t.key()].value("status", "") == "Skipped");
      auto reason = details[t.key()].value("reason", "");
      BOOST_TEST(reason_core(reason) == "NotLiveMigratable: " + t.not_migratable_reason);
      // The bounded explanation follows: verdict and node, as the cluster has them.
      std::string verdict = t.node_score > 0 ? "semi" : "non";
      BOOST_TEST(reason.find(" | " + verdict + " on " + t.node + " (score "
                             + std::to_string(t.node_score) + " of ") != std::string::npos);
      BOOST_TEST(reason.size() <= 256u);
    }
  BOOST_TEST(s.schedopt_vmims().size() == 0u);
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_CASE(in_progress_no_target_and_evaluation_error_are_skipped_per_vm) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "30", "--misplaced", "0.4", "--seed", "7",
                              "--migration-duration", "300ms", "--parallel-migrations-per-cluster", "10"});
  auto initial = migratable_candidates(s.truth());
  BOOST_REQUIRE(initial.size() >= 5);

  // NoTargetNode: cordon every node scoring above one candidate's (best, and the
  // levels docs/design.md §2.5 falls back to).
  auto no_target = initial.front();
  for (auto& n : no_target.above)
    merge_patch(s.sim(), "/api/v1/nodes/" + n, {{"spec", {{"unschedulable", true}}}});
  auto cordoned = migratable_candidates(s.truth());
  BOOST_REQUIRE(cordoned.size() >= 2);

  // MigrationInProgress: someone else's VMIM that can never be scheduled stays non-final.
  auto busy = cordoned[0];
  json vmim = {{"apiVersion", "kubevirt.io/v1"},
               {"kind", "VirtualMachineInstanceMigration"},
               {"metadata", {{"generateName", busy.name + "-manual-"}, {"namespace", busy.ns}}},
               {"spec", {{"vmiName", busy.name}, {"addedNodeSelector", {{"kubernetes.io/hostname", "no-such-node"}}}}}};
  auto created = call(s.sim(), "POST", vmims_in(busy.ns), vmim, 201);
  std::string busy_vmim = created["metadata"]["name"];

  // EvaluationError: the PVC of another candidate is gone (finalizer dropped first).
  auto broken = cordoned[1];
  auto claim = first_claim(s.sim(), broken);
  BOOST_REQUIRE(!claim.empty());
  auto pvc_path = "/api/v1/namespaces/" + broken.ns + "/persistentvolumeclaims/" + claim;
  merge_patch(s.sim(), pvc_path, {{"metadata", {{"finalizers", nullptr}}}});
  call(s.sim(), "DELETE", pvc_path);
  BOOST_REQUIRE(eventually([&] { return status_of(s.sim(), "GET", pvc_path) == 404; }, std::chrono::seconds(10)));

  auto truth = s.truth();
  std::map<std::string, std::string> expected_skips; // key -> exact reason or prefix
  std::set<std::string> prefix_only;
  std::set<std::string> expected_success;
  for (auto& t : truth) {
    if (!t.error.empty()) {
      expected_skips[t.key()] = "EvaluationError: " + t.error;
    } else if (!t.misplaced) {
      continue;
    } else if (t.key() == busy.key()) {
      expected_skips[t.key()] = "MigrationInProgress: vmim=" + busy.ns + "/" + busy_vmim;
    } else if (t.targets.empty()) {
      expected_skips[t.key()] = "NoTargetNode: ";
      prefix_only.insert(t.key());
    } else {
      expected_success.insert(t.key());
    }
  }
  BOOST_REQUIRE(expected_skips.count(no_target.key()) == 1);
  BOOST_REQUIRE(expected_skips[broken.key()] == "EvaluationError: persistentvolumeclaims \"" + claim + "\" not found");

  s.start_controller();
  s.create_request("skips", scenario::enabled_spec());
  auto r = s.wait_final("skips");
  long long k = (long long)expected_skips.size();
  BOOST_TEST(status_of_request(r) == "PartialSuccess");
  BOOST_TEST(reason_of_request(r) == outstanding_reason(k, std::to_string(k) + " skipped"));
  BOOST_TEST(counter(r, "skipped") == k);
  BOOST_TEST(counter(r, "successful") == (long long)expected_success.size());
  BOOST_TEST(counter(r, "failed") == 0);
  auto details = details_by_vm(r);
  for (auto& [key, reason] : expected_skips)
    BOOST_TEST_CONTEXT("vm " << key) {
      BOOST_REQUIRE(details.count(key) == 1);
      BOOST_TEST(details[key].value("status", "") == "Skipped");
      if (prefix_only.count(key))
        BOOST_TEST(starts_with(details[key].value("reason", ""), reason));
      else
        BOOST_TEST(reason_core(details[key].value("reason", "")) == reason);
    }
  for (auto& key : expected_success)
    BOOST_TEST_CONTEXT("vm " << key) {
      BOOST_REQUIRE(details.count(key) == 1);
      BOOST_TEST(details[key].value("status", "") == "Successful");
    }
  // schedopt left the foreign VMIM alone and created none for the skipped VMs.
  BOOST_TEST(status_of(s.sim(), "GET", vmims_in(busy.ns) + "/" + busy_vmim) == 200);
  for (auto& m : s.schedopt_vmims())
    BOOST_TEST(expected_success.count(m["metadata"]["namespace"].get<std::string>() + "/"
                                      + m["spec"]["vmiName"].get<std::string>()) == 1u);
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_CASE(recently_migrated_vms_are_cooling_off_after_a_failover) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "30", "--misplaced", "0.4", "--seed", "9",
                              "--migration-duration", "300ms", "--parallel-migrations-per-cluster", "10"});
  s.start_controller({"--cool-off-period", "1h"});
  s.create_request("first", scenario::enabled_spec());
  auto r1 = s.wait_final("first");
  BOOST_REQUIRE(status_of_request(r1) == "Successful");
  std::set<std::string> migrated;
  for (auto& [key, d] : details_by_vm(r1))
    if (d.value("status", "") == "Successful")
      migrated.insert(key);
  BOOST_REQUIRE(!migrated.empty());
  // The controller stops while the failover happens, so the ground truth is taken before
  // request 2 can run; the cool-off must survive the restart (docs/design.md §3.5).
  BOOST_TEST(s.controller().terminate() == 0);

  // Fail over the pool of the node that now hosts most of the migrated VMs.
  std::map<std::string, int> hosts;
  for (auto& t : s.truth())
    if (migrated.count(t.key()))
      ++hosts[t.node];
  std::string node;
  for (auto& [n, c] : hosts)
    if (node.empty() || c > hosts[node])
      node = n;
  auto failover = call(s.sim(), "POST", "/admin/failover?node=" + node);
  std::string second = failover.value("request", "");
  BOOST_REQUIRE(!second.empty());

  auto truth = s.truth();
  std::set<std::string> cooling, expected_success;
  for (auto& t : migratable_candidates(truth))
    (migrated.count(t.key()) ? cooling : expected_success).insert(t.key());
  BOOST_REQUIRE_MESSAGE(!cooling.empty(), "the failover made no migrated VM misplaced again");

  s.start_controller({"--cool-off-period", "1h"});
  auto r2 = s.wait_final(second);
  long long k = (long long)cooling.size();
  BOOST_TEST(status_of_request(r2) == "PartialSuccess");
  BOOST_TEST(reason_of_request(r2) == outstanding_reason(k, std::to_string(k) + " skipped"));
  BOOST_TEST(counter(r2, "skipped") == k);
  BOOST_TEST(counter(r2, "successful") == (long long)expected_success.size());
  BOOST_TEST(counter(r2, "failed") == 0);
  auto details = details_by_vm(r2);
  auto earliest = epoch_of(r1["status"]["startTimestamp"]) + 3600;
  auto latest = epoch_of(r1["status"]["finishTimestamp"]) + 3600;
  const std::string prefix = "CoolingOff: eligible after ";
  for (auto& key : cooling)
    BOOST_TEST_CONTEXT("vm " << key) {
      BOOST_REQUIRE(details.count(key) == 1);
      BOOST_TEST(details[key].value("status", "") == "Skipped");
      auto reason = reason_core(details[key].value("reason", ""));
      BOOST_REQUIRE(starts_with(reason, prefix));
      auto when = epoch_of(reason.substr(prefix.size()));
      BOOST_TEST(when >= earliest);
      BOOST_TEST(when <= latest + 1);
    }
  for (auto& key : expected_success)
    BOOST_TEST_CONTEXT("vm " << key) {
      BOOST_REQUIRE(details.count(key) == 1);
      BOOST_TEST(details[key].value("status", "") == "Successful");
    }
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
