// Pod readers after the upstream helpers each function names.
#include "sim/pod_facts.hpp"

#include <algorithm>
#include <cmath>

#include "model/quantity.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

int64_t quantity_of(const json& list, const char* key, int64_t scale) {
  if (!list.is_object())
    return 0;
  auto it = list.find(key);
  if (it == list.end())
    return 0;
  if (it->is_string())
    return parse_quantity(it->get<std::string>(), scale).value_or(0);
  if (it->is_number())
    return static_cast<int64_t>(std::ceil(it->get<double>() * static_cast<double>(scale)));
  return 0;
}

pod_resources requests_in(const json& container) {
  auto requests = container.value("/resources/requests"_json_pointer, json::object());
  return {quantity_of(requests, "cpu", 1000), quantity_of(requests, "memory", 1)};
}

} // namespace

std::string pod_phase(const json& pod) {
  return text_at(pod, "/status/phase"_json_pointer);
}

bool is_pod_terminal(const json& pod) {
  auto phase = pod_phase(pod);
  return phase == "Succeeded" || phase == "Failed";
}

bool is_pod_ready(const json& pod) {
  for (const auto& c : pod.value("/status/conditions"_json_pointer, json::array()))
    if (c.value("type", "") == "Ready")
      return c.value("status", "") == "True";
  return false;
}

bool is_virt_launcher(const json& pod) {
  return text_at(pod, json::json_pointer{std::string{"/metadata/labels/"} + kubevirt_app_label})
         == virt_launcher_app;
}

json controller_of(const json& object) {
  for (const auto& ref : object.value("/metadata/ownerReferences"_json_pointer, json::array()))
    if (ref.is_object() && ref.value("controller", false))
      return ref;
  return nullptr;
}

pod_resources pod_requests(const json& pod) {
  pod_resources total;
  for (const auto& c : pod.value("/spec/containers"_json_pointer, json::array())) {
    auto r = requests_in(c);
    total.cpu_millis += r.cpu_millis;
    total.memory_bytes += r.memory_bytes;
  }
  for (const auto& c : pod.value("/spec/initContainers"_json_pointer, json::array())) {
    auto r = requests_in(c);
    total.cpu_millis = std::max(total.cpu_millis, r.cpu_millis);
    total.memory_bytes = std::max(total.memory_bytes, r.memory_bytes);
  }
  auto overhead = pod.value("/spec/overhead"_json_pointer, json::object());
  total.cpu_millis += quantity_of(overhead, "cpu", 1000);
  total.memory_bytes += quantity_of(overhead, "memory", 1);
  return total;
}

std::vector<std::string> pod_claims(const json& pod) {
  std::vector<std::string> out;
  for (const auto& v : pod.value("/spec/volumes"_json_pointer, json::array())) {
    auto claim = text_at(v, "/persistentVolumeClaim/claimName"_json_pointer);
    if (!claim.empty())
      out.push_back(claim);
  }
  return out;
}

bool set_pod_condition(json& pod, const std::string& type, const std::string& status,
                       const std::string& now, const std::string& reason, const std::string& message) {
  auto& conditions = pod["status"]["conditions"];
  if (!conditions.is_array())
    conditions = json::array();
  for (auto& c : conditions) {
    if (c.value("type", "") != type)
      continue;
    bool changed = c.value("status", "") != status;
    if (changed)
      c["lastTransitionTime"] = now;
    if (c.value("reason", "") != reason || c.value("message", "") != message)
      changed = true;
    c["status"] = status;
    if (reason.empty())
      c.erase("reason");
    else
      c["reason"] = reason;
    if (message.empty())
      c.erase("message");
    else
      c["message"] = message;
    return changed;
  }
  json c = {{"type", type}, {"status", status}, {"lastProbeTime", nullptr}, {"lastTransitionTime", now}};
  if (!reason.empty())
    c["reason"] = reason;
  if (!message.empty())
    c["message"] = message;
  conditions.push_back(std::move(c));
  return true;
}

} // namespace schedopt::sim
