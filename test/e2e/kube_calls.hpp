// Plain JSON calls against an API server (the simulator's, or kube-apiserver through
// test/realcp's control plane) (and any plain-HTTP URL, for the
// Portworx SDK gateway and /healthz) used by the end-to-end tests.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include <curl/curl.h>
#include <nlohmann/json.hpp>

#include "realcp/kube_audit.hpp"
#include "sim/wire_http.hpp"

namespace schedopt::e2e {

using json = nlohmann::json;
using schedopt::test::http_reply;
using schedopt::test::sim_process;

inline const std::string requests_path = "/apis/stork.libopenstorage.org/v1alpha1/schedulingoptimizations";
inline const std::string vmis_path = "/apis/kubevirt.io/v1/virtualmachineinstances";
inline const std::string vmims_path = "/apis/kubevirt.io/v1/virtualmachineinstancemigrations";
inline const std::string managed_by_selector = "app.kubernetes.io/managed-by%3Dschedopt";
inline const std::string request_uid_label = "schedopt.libopenstorage.org/request-uid";

inline std::string vmims_in(const std::string& ns) {
  return "/apis/kubevirt.io/v1/namespaces/" + ns + "/virtualmachineinstancemigrations";
}

/// Any call that does not answer `expected_status` throws, naming the call and the body.
template <class Endpoint>
json call(const Endpoint& sim, const std::string& method, const std::string& path,
                 const json& body = nullptr, long expected_status = 0,
                 const std::string& content_type = "application/json") {
  auto reply = schedopt::test::http_request(sim, method, path, body.is_null() ? "" : body.dump(),
                                            content_type);
  bool ok = expected_status ? reply.status == expected_status
                            : reply.status >= 200 && reply.status < 300;
  if (!ok)
    throw std::runtime_error(method + " " + path + " answered " + std::to_string(reply.status)
                             + ": " + reply.body);
  return reply.json();
}

template <class Endpoint>
json get(const Endpoint& sim, const std::string& path) { return call(sim, "GET", path); }

template <class Endpoint>
json items(const Endpoint& sim, const std::string& path) {
  auto list = get(sim, path);
  return list.value("items", json::array());
}

template <class Endpoint>
json merge_patch(const Endpoint& sim, const std::string& path, const json& patch) {
  return call(sim, "PATCH", path, patch, 0, "application/merge-patch+json");
}

/// The cluster's record: the simulator's GET /admin/audit, or kube-apiserver's audit log
/// in the same shape when the simulator is attached to the real control plane.
inline json audit(const sim_process& sim) {
  return sim.attached() ? realcp::kube_audit_document(sim.audit_log()) : get(sim, "/admin/audit");
}

template <class Endpoint>
long status_of(const Endpoint& sim, const std::string& method, const std::string& path) {
  return schedopt::test::http_request(sim, method, path).status;
}

/// How plain_get reaches a URL that needs more than a bare GET.
struct get_options {
  std::string bearer_token;     // sent as `Authorization: Bearer` when not empty
  std::string ca_file;          // verifies an https:// server against this CA
  bool insecure = false;        // https:// without verification (Prometheus's insecureSkipVerify)
};

/// GET on a URL outside the API server (Portworx SDK gateway, /healthz, /metrics); status
/// 0 when no answer came.
inline http_reply plain_get(const std::string& url, const get_options& options = {}) {
  http_reply reply;
  CURL* curl = curl_easy_init();
  curl_slist* headers = nullptr;
  if (!options.bearer_token.empty())
    headers = curl_slist_append(headers, ("Authorization: Bearer " + options.bearer_token).c_str());
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
  if (!options.ca_file.empty())
    curl_easy_setopt(curl, CURLOPT_CAINFO, options.ca_file.c_str());
  if (options.insecure) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, schedopt::test::collect_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  if (curl_easy_perform(curl) == CURLE_OK)
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return reply;
}

/// Polls `pred` every `every` until it holds or `timeout` passes; returns whether it held.
template <class Pred>
bool eventually(Pred pred, std::chrono::seconds timeout,
                std::chrono::milliseconds every = std::chrono::milliseconds(100)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (pred())
      return true;
    if (std::chrono::steady_clock::now() >= deadline)
      return false;
    std::this_thread::sleep_for(every);
  }
}

inline bool is_final_phase(const json& vmim) {
  auto phase = vmim.value("/status/phase"_json_pointer, std::string());
  return phase == "Succeeded" || phase == "Failed";
}

} // namespace schedopt::e2e
