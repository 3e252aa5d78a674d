// Shared proof for the bad-input suite (docs/testing.md): break one thing with
// the simulator's answer faults or a hostile object, then show what the user sees and
// that nothing else was lost — a good request still migrates every candidate it should
// (judged by GET /admin/audit) and the controller is the same, still-running process.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "e2e/e2e_fixture.hpp"

namespace schedopt::e2e {

/// The fleet every bad-input case runs: 6 nodes, 20 VMIs, 40 % misplaced, 300 ms
/// migrations, KubeVirt's cluster cap 10 (so no migration queues behind another).
inline std::vector<std::string> fleet_flags(const std::string& seed) {
  return {"--nodes", "6", "--vmis", "20", "--misplaced", "0.4", "--seed", seed,
          "--migration-duration", "300ms", "--parallel-migrations-per-cluster", "10"};
}

/// `--crd-dir` flags for a simulator whose SchedulingOptimization CRD validates nothing
/// in spec (x-kubernetes-preserve-unknown-fields, as an old or hand-edited CRD may), so a
/// hostile spec reaches the controller: the enforcing CRD of deploy/ refuses it with a 422.
/// The other CRDs are copied from sim/crds; the directory lives as long as the process.
inline std::vector<std::string> lax_crd_flags() {
  namespace fs = std::filesystem;
  struct lax_dir {
    std::string path;
    lax_dir() {
      char templ[] = "/tmp/schedopt-lax-crds-XXXXXX";
      path = mkdtemp(templ);
      const std::string source = std::string(SCHEDOPT_SOURCE_DIR) + "/sim/crds";
      for (auto& entry : fs::directory_iterator(source))
        if (entry.path().filename() != "schedulingoptimizations.stork.libopenstorage.org.yaml")
          fs::copy_file(entry.path(), fs::path(path) / entry.path().filename());
      std::ofstream(path + "/schedulingoptimizations.stork.libopenstorage.org.yaml")
        << "apiVersion: apiextensions.k8s.io/v1\n"
           "kind: CustomResourceDefinition\n"
           "metadata:\n"
           "  name: schedulingoptimizations.stork.libopenstorage.org\n"
           "spec:\n"
           "  group: stork.libopenstorage.org\n"
           "  names: {kind: SchedulingOptimization, listKind: SchedulingOptimizationList,\n"
           "          plural: schedulingoptimizations, singular: schedulingoptimization}\n"
           "  scope: Cluster\n"
           "  versions:\n"
           "  - name: v1alpha1\n"
           "    served: true\n"
           "    storage: true\n"
           "    subresources: {status: {}}\n"
           "    schema:\n"
           "      openAPIV3Schema:\n"
           "        type: object\n"
           "        properties:\n"
           "          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}\n"
           "          status: {type: object, x-kubernetes-preserve-unknown-fields: true}\n";
    }
    ~lax_dir() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  };
  static lax_dir dir;
  return {"--crd-dir", dir.path};
}

/// `flags` followed by `more`.
inline std::vector<std::string> with_flags(std::vector<std::string> flags, const std::vector<std::string>& more) {
  flags.insert(flags.end(), more.begin(), more.end());
  return flags;
}

/// The candidates a good request must migrate, from the objects as they are now; at
/// least three, or the proof would prove little.
inline std::vector<vmi_truth> required_candidates(const std::vector<vmi_truth>& truth) {
  auto out = migratable_candidates(truth);
  BOOST_REQUIRE_MESSAGE(out.size() >= 3, "only " << out.size() << " candidates");
  return out;
}

/// POST /admin/answer-faults (sim/answer_faults.hpp); the rule as the simulator stored it.
inline json break_answers(const sim_process& sim, const json& rule) {
  return call(sim, "POST", "/admin/answer-faults", rule, 201);
}

/// How often rule `id` fired so far.
inline int times_fired(const sim_process& sim, int id) {
  for (auto& r : get(sim, "/admin/answer-faults").value("rules", json::array()))
    if (r.value("id", 0) == id)
      return r.value("fired", 0);
  return -1;
}

/// Waits until rule `id` fired at least once; fails the test otherwise.
inline void require_fired(const sim_process& sim, const json& rule,
                          std::chrono::seconds timeout = std::chrono::seconds(30)) {
  int id = rule.value("id", 0);
  BOOST_REQUIRE_MESSAGE(eventually([&] { return times_fired(sim, id) > 0; }, timeout),
                        "answer fault " << rule.dump() << " never fired");
}

/// Events about the object named `name` (any namespace).
inline json events_about(const sim_process& sim, const std::string& name) {
  json out = json::array();
  for (auto& e : items(sim, "/api/v1/events"))
    if (e.value("/involvedObject/name"_json_pointer, std::string()) == name)
      out.push_back(e);
  return out;
}

/// Waits for an event of `type` and `reason` about `name`; its message ("" if none came).
inline std::string wait_event(const sim_process& sim, const std::string& name, const std::string& type,
                              const std::string& reason, std::chrono::seconds timeout = std::chrono::seconds(15)) {
  std::string message;
  eventually(
    [&] {
      for (auto& e : events_about(sim, name))
        if (e.value("type", "") == type && e.value("reason", "") == reason) {
          message = e.value("message", "");
          return true;
        }
      return false;
    },
    timeout, std::chrono::milliseconds(200));
  return message;
}

/// Nothing lost: `good` (already Final) ended `status`, and the audit holds exactly one
/// schedopt VMIM per candidate in `candidates`, labelled with its uid, Succeeded, not
/// deleted, moving that VMI; no other request's uid in `others` created any VMIM.
inline void expect_every_candidate_migrated(const sim_process& sim, const json& good,
                                            const std::vector<vmi_truth>& candidates,
                                            const std::set<std::string>& others = {},
                                            const std::string& status = "Successful") {
  BOOST_TEST(status_of_request(good) == status, "good request: " << good.dump().substr(0, 2000));
  BOOST_TEST(counter(good, "successful") == (long long)candidates.size());
  BOOST_TEST(counter(good, "failed") == 0);
  auto uid = good.value("/metadata/uid"_json_pointer, std::string());
  std::map<std::string, int> migrated; // "<ns>/<vmi>" -> Succeeded VMIMs of the good request
  for (auto& v : audit(sim).value("vmims", json::array())) {
    auto request_uid = v.value("requestUid", "");
    BOOST_TEST(others.count(request_uid) == 0u, "a VMIM of a bad request: " << v.dump());
    if (request_uid != uid)
      continue;
    BOOST_TEST(v.value("phase", "") == "Succeeded", "VMIM " << v.dump());
    BOOST_TEST(!v.value("deleted", false), "VMIM " << v.dump());
    ++migrated[v.value("namespace", "") + "/" + v.value("vmi", "")];
  }
  BOOST_TEST(migrated.size() == candidates.size());
  for (auto& t : candidates)
    BOOST_TEST(migrated[t.key()] == 1, "VMIMs of " << t.key() << ": " << migrated[t.key()]);
}

/// The controller never restarted: the process started by the test still runs, and it
/// started its controller once.
inline void expect_same_controller(scenario& s) {
  BOOST_TEST(s.controller().running(), "schedopt exited: " << s.controller().log_tail(40));
}

inline std::string uid_of(const json& object) {
  return object.value("/metadata/uid"_json_pointer, std::string());
}

} // namespace schedopt::e2e
