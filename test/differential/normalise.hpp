// What must differ between two API servers answering the same request, taken out before
// their answers are compared: uids, resourceVersions, timestamps, continue tokens,
// managedFields' times, generated names. What is left is what a client could tell apart.
#pragma once

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace schedopt::differential {

using json = nlohmann::json;

/// `text` with every uuid, RFC 3339 time and resourceVersion-like number replaced by a
/// placeholder, so messages that quote them compare equal.
inline std::string normalise_text(std::string text) {
  static const std::regex uuid("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  static const std::regex time("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})");
  static const std::regex token_volume("kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}");
  text = std::regex_replace(text, uuid, "<uid>");
  text = std::regex_replace(text, token_volume, "kube-api-access-<random>");
  text = std::regex_replace(text, time, "<time>");
  return text;
}

namespace detail {

inline bool is_key(const std::string& key, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (key == k)
      return true;
  return false;
}

inline void normalise_in_place(json& value, const std::string& key) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      const std::string& k = it.key();
      if (is_key(k, {"resourceVersion", "selfLink"})) {
        it = value.erase(it);
        continue;
      }
      if (is_key(k, {"uid", "creationTimestamp", "deletionTimestamp", "time", "lastTransitionTime",
                     "firstTimestamp", "lastTimestamp", "eventTime", "renewTime", "acquireTime"})
          && it.value().is_string()) {
        it.value() = "<" + k + ">";
        ++it;
        continue;
      }
      if (k == "continue" && it.value().is_string()) {
        it.value() = it.value().get<std::string>().empty() ? "" : "<token>";
        ++it;
        continue;
      }
      normalise_in_place(it.value(), k);
      ++it;
    }
  } else if (value.is_array()) {
    for (auto& v : value)
      normalise_in_place(v, key);
  } else if (value.is_string()) {
    value = normalise_text(value.get<std::string>());
  }
}

inline void differences(const json& a, const json& b, const std::string& at, std::vector<std::string>& out) {
  if (a.type() != b.type() || (!a.is_object() && !a.is_array())) {
    if (a != b)
      out.push_back(at.empty() ? "/" : at);
    return;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) {
      out.push_back((at.empty() ? "" : at) + " (length " + std::to_string(a.size()) + " vs "
                    + std::to_string(b.size()) + ")");
      return;
    }
    for (std::size_t i = 0; i < a.size(); ++i)
      differences(a[i], b[i], at + "/" + std::to_string(i), out);
    return;
  }
  for (auto it = a.begin(); it != a.end(); ++it) {
    if (!b.contains(it.key()))
      out.push_back(at + "/" + it.key() + " (only kube-apiserver)");
    else
      differences(it.value(), b.at(it.key()), at + "/" + it.key(), out);
  }
  for (auto it = b.begin(); it != b.end(); ++it)
    if (!a.contains(it.key()))
      out.push_back(at + "/" + it.key() + " (only simulator)");
}

} // namespace detail

namespace detail {

/// managedFields as "manager operation subresource" lines: who owns what is visible to a
/// client (server-side apply conflicts name the manager); the entries' times and field
/// sets' encoding are left out. The lines are sorted: apimachinery orders entries by
/// operation, then time in whole seconds, then manager, so two entries written in the same
/// second fall in either order, on either server.
inline void summarise_managed_fields(json& object) {
  if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object())
    return;
  auto& meta = object["metadata"];
  if (!meta.contains("managedFields"))
    return;
  json managers = json::array();
  for (auto& entry : meta["managedFields"])
    managers.push_back(entry.value("manager", "") + " " + entry.value("operation", "") + " "
                       + entry.value("subresource", ""));
  std::sort(managers.begin(), managers.end());
  meta["managedFields"] = managers;
}

} // namespace detail

/// An APIResourceList's resources by name: kube-apiserver lists a group's custom
/// resources in its CRD informer's order, which is a Go map's.
inline void sort_discovery_resources(json& answer) {
  if (!answer.is_object() || answer.value("kind", "") != "APIResourceList" || !answer["resources"].is_array())
    return;
  auto& resources = answer["resources"];
  std::stable_sort(resources.begin(), resources.end(),
                   [](const json& a, const json& b) { return a.value("name", "") < b.value("name", ""); });
}

/// `answer` without what two servers must answer differently.
inline json normalise(json answer) {
  sort_discovery_resources(answer);
  detail::summarise_managed_fields(answer);
  if (answer.is_object() && answer.contains("items") && answer["items"].is_array())
    for (auto& item : answer["items"])
      detail::summarise_managed_fields(item);
  if (answer.is_object() && answer.contains("object")) // a watch event
    detail::summarise_managed_fields(answer["object"]);
  detail::normalise_in_place(answer, "");
  return answer;
}

/// The JSON pointers where `real` and `simulated` differ (both normalised first).
inline std::vector<std::string> differences(const json& real, const json& simulated) {
  std::vector<std::string> out;
  detail::differences(real, simulated, "", out);
  return out;
}

} // namespace schedopt::differential
