// What the pod-kind end-to-end tests read off a request, the simulator's objects and its
// audit: SPEC §9's verdict per pod from the ground truth, the pod status block, and the
// eviction records that show a budget violated or a pod evicted more than once.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "e2e/e2e_fixture.hpp"

namespace schedopt::e2e {

inline const std::string pods_path = "/api/v1/pods";
inline const std::string budgets_path = "/apis/policy/v1/poddisruptionbudgets";

inline json pod_spec(json extra = json::object()) {
  json pod = {{"enabled", true}};
  pod.update(extra);
  return {{"podHyperconvergence", pod}};
}

inline json pod_status(const json& request) { return kind_status(request, "podHyperconvergence"); }

inline long long pod_counter(const json& request, const char* name) {
  return kind_counter(request, "podHyperconvergence", name);
}

inline std::map<std::string, json> pod_details(const json& request) {
  return kind_details(request, "podHyperconvergence");
}


/// SPEC §9's verdict for each considered pod, from the ground truth: "" not a candidate,
/// else "eligible" or the skip kind the filters (in their order) give it.
inline std::map<std::string, std::string> expected_verdicts(const std::vector<pod_truth>& truth) {
  std::map<std::string, std::string> out;
  for (auto& t : truth) {
    if (t.phase != "Running" || t.virt_launcher || !t.error.empty() || !t.has_driver_volume
        || !t.misplaced)
      continue;
    std::string v;
    if (t.owner_kind != "StatefulSet" && t.owner_kind != "ReplicaSet")
      v = "NoController";
    else if (t.scheduler_name != "stork")
      v = "SchedulerNotStorageAware";
    else if (t.schedulable_best.empty())
      v = "NoTargetNode";
    else
      v = "eligible";
    out[t.key()] = v;
  }
  return out;
}

inline std::string kind_of(const std::string& reason) { return reason.substr(0, reason.find(':')); }

/// Fails a pool over and deletes the request the simulator created for it, so the test
/// asks for what it wants itself.
inline void fail_over(scenario& s) {
  auto created = call(s.sim(), "POST", "/admin/failover");
  auto name = created.value("request", std::string());
  if (!name.empty())
    call(s.sim(), "DELETE", requests_path + "/" + name);
}

/// Eviction records that violated a budget: a Ready pod evicted (201) while its budget
/// allowed no disruption.
inline std::vector<json> budget_violations(const json& a) {
  std::vector<json> out;
  for (auto& e : a.value("evictions", json::array()))
    if (e.value("code", 0) == 201 && e.value("podReady", false) && e["disruptionsAllowed"].is_number()
        && e["disruptionsAllowed"].get<long long>() == 0)
      out.push_back(e);
  return out;
}

/// Evictions the API accepted, per pod, for the request's controller (User-Agent schedopt).
inline std::map<std::string, int> accepted_evictions(const json& a) {
  std::map<std::string, int> out;
  for (auto& e : a.value("evictions", json::array()))
    if (e.value("code", 0) == 201 && e.value("identity", "").find("schedopt") != std::string::npos)
      ++out[e.value("namespace", "") + "/" + e.value("pod", "")];
  return out;
}


} // namespace schedopt::e2e
