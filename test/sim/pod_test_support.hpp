// Helpers for the pod tests (eviction, disruption budgets, workload controllers,
// placement): one simulator with quick pod timings shared by the cases that build their
// own objects, requests in the shapes kubectl sends, polling until a condition holds,
// and replica nodes read back from the Portworx SDK gateway.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <curl/curl.h>
#include <nlohmann/json.hpp>

#include "wire_fixture.hpp"
#include "wire_http.hpp"

namespace schedopt::test {

using json = nlohmann::json;

/// A cluster without scenario pods (cases make their own), with pod timings short
/// enough for a test and long enough to observe each step.
inline sim_process& pod_sim() {
  static sim_process sim({"--nodes", "4", "--vmis", "4", "--seed", "11", "--pod-start-delay", "300ms",
                          "--pod-recreate-delay", "200ms", "--pod-termination-delay", "500ms"});
  return sim;
}

/// Polls `probe` every 50ms until it holds or `timeout` passes.
inline bool eventually(const std::function<bool()>& probe, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    if (probe())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return probe();
}

/// GET `path` as JSON; null unless it answered 200.
inline json get_json(const sim_process& sim, const std::string& path) {
  auto reply = http_request(sim, "GET", path);
  return reply.status == 200 ? reply.json() : json();
}

inline std::string pods_path(const std::string& ns) {
  return "/api/v1/namespaces/" + ns + "/pods";
}

inline std::string pdbs_path(const std::string& ns) {
  return "/apis/policy/v1/namespaces/" + ns + "/poddisruptionbudgets";
}

inline std::string replicasets_path(const std::string& ns) {
  return "/apis/apps/v1/namespaces/" + ns + "/replicasets";
}

inline std::string statefulsets_path(const std::string& ns) {
  return "/apis/apps/v1/namespaces/" + ns + "/statefulsets";
}

/// Creates namespace `name` (unique per test process).
inline std::string make_namespace(const sim_process& sim, const std::string& prefix) {
  auto name = unique_name(prefix);
  auto reply = http_request(sim, "POST", "/api/v1/namespaces",
                            json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}}.dump());
  if (reply.status != 201)
    throw std::runtime_error("creating namespace " + name + ": " + reply.body);
  return name;
}

/// A pod template: one container with requests; `extra` merged into the spec.
inline json pod_template(const std::string& app, const json& extra = json::object()) {
  json spec = {{"containers",
                json::array({{{"name", "app"},
                              {"image", "docker.io/library/busybox:1.36"},
                              {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "128Mi"}}}}}}})}};
  spec.update(extra);
  return {{"metadata", {{"labels", {{"app", app}}}}}, {"spec", spec}};
}

inline json replicaset(const std::string& name, int replicas, const json& tmpl) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "ReplicaSet"},
          {"metadata", {{"name", name}}},
          {"spec", {{"replicas", replicas}, {"selector", {{"matchLabels", tmpl["metadata"]["labels"]}}}, {"template", tmpl}}}};
}

/// A PodDisruptionBudget selecting app=`app` with `field` (minAvailable or
/// maxUnavailable) set to `value` (an integer or a percentage string).
inline json budget(const std::string& name, const std::string& app, const std::string& field, const json& value) {
  return {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", {{"name", name}}},
          {"spec", {{"selector", {{"matchLabels", {{"app", app}}}}}, {field, value}}}};
}

inline http_reply create(const sim_process& sim, const std::string& path, const json& object) {
  return http_request(sim, "POST", path, object.dump());
}

/// POST .../pods/<name>/eviction with a policy/v1 Eviction, as kubectl drain sends it.
inline http_reply evict(const sim_process& sim, const std::string& ns, const std::string& pod,
                        const std::string& query = {}, const json& delete_options = nullptr) {
  json body = {{"apiVersion", "policy/v1"}, {"kind", "Eviction"}, {"metadata", {{"name", pod}, {"namespace", ns}}}};
  if (!delete_options.is_null())
    body["deleteOptions"] = delete_options;
  return http_request(sim, "POST", pods_path(ns) + "/" + pod + "/eviction" + query, body.dump());
}

inline std::vector<json> pods_of(const sim_process& sim, const std::string& ns, const std::string& app) {
  auto list = get_json(sim, pods_path(ns) + "?labelSelector=app%3D" + app);
  std::vector<json> out;
  for (auto& p : list.value("items", json::array()))
    out.push_back(p);
  return out;
}

inline bool pod_ready(const json& pod) {
  if (!pod.is_object())
    return false;
  for (auto& c : pod.value("/status/conditions"_json_pointer, json::array()))
    if (c.value("type", "") == "Ready")
      return c.value("status", "") == "True";
  return false;
}

inline bool terminating(const json& pod) {
  return pod.is_object() && pod.contains("metadata") && pod["metadata"].contains("deletionTimestamp");
}

/// The Ready, not terminating pods of app=`app`.
inline std::vector<json> ready_pods(const sim_process& sim, const std::string& ns, const std::string& app) {
  std::vector<json> out;
  for (auto& p : pods_of(sim, ns, app))
    if (pod_ready(p) && !terminating(p))
      out.push_back(p);
  return out;
}

inline json pdb_status(const sim_process& sim, const std::string& ns, const std::string& name) {
  auto pdb = get_json(sim, pdbs_path(ns) + "/" + name);
  return pdb.is_object() ? pdb.value("status", json::object()) : json::object();
}

/// GET on a plain-HTTP URL (the SDK gateway); status 0 when unreachable.
inline http_reply plain_http_get(const std::string& url) {
  http_reply reply;
  CURL* curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  if (curl_easy_perform(curl) == CURLE_OK)
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  curl_easy_cleanup(curl);
  return reply;
}

/// Node names holding replicas of the pod's driver volumes, one set per claim, read as
/// Stork reads them: PVC -> PV volumeHandle -> the SDK gateway's replica sets.
inline std::vector<std::set<std::string>> replica_nodes_of(const sim_process& sim, const json& pod) {
  std::vector<std::set<std::string>> out;
  auto ns = pod["metadata"]["namespace"].get<std::string>();
  for (auto& v : pod.value("/spec/volumes"_json_pointer, json::array())) {
    auto claim = v.value("/persistentVolumeClaim/claimName"_json_pointer, std::string{});
    if (claim.empty())
      continue;
    auto pvc = get_json(sim, "/api/v1/namespaces/" + ns + "/persistentvolumeclaims/" + claim);
    auto pv = get_json(sim, "/api/v1/persistentvolumes/" + pvc.value("/spec/volumeName"_json_pointer, std::string{}));
    auto id = pv.value("/spec/csi/volumeHandle"_json_pointer, std::string{});
    auto inspect = plain_http_get(sim.sdk_url() + "/v1/volumes/inspect/" + id).json();
    std::set<std::string> nodes;
    for (auto& set : inspect.value("/volume/replica_sets"_json_pointer, json::array()))
      for (auto& px : set.value("nodes", json::array())) {
        auto node = plain_http_get(sim.sdk_url() + "/v1/nodes/inspect/" + px.get<std::string>()).json();
        nodes.insert(node.value("/node/scheduler_node_name"_json_pointer, std::string{}));
      }
    out.push_back(nodes);
  }
  return out;
}

/// How many of the pod's volumes have a replica on each node.
inline std::map<std::string, int> replica_scores(const std::vector<std::set<std::string>>& replicas) {
  std::map<std::string, int> score;
  for (auto& set : replicas)
    for (auto& n : set)
      ++score[n];
  return score;
}

inline json audit(const sim_process& sim) {
  return get_json(sim, "/admin/audit");
}

} // namespace schedopt::test
