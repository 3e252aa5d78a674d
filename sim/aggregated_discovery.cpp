#include "sim/aggregated_discovery.hpp"

#include <sstream>
#include <vector>

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

std::string trimmed(std::string s) {
  auto first = s.find_first_not_of(" \t");
  auto last = s.find_last_not_of(" \t");
  return first == std::string::npos ? std::string{} : s.substr(first, last - first + 1);
}

/// One group version's resources, subresources under their resource.
json version_entry(const resource_registry& registry, const std::string& group, const std::string& version) {
  auto list = registry.resource_list(group, version);
  json resources = json::array();
  if (list.is_null())
    return nullptr;
  const auto& entries = list["resources"];
  for (const auto& e : entries) {
    auto name = e.value("name", std::string{});
    if (name.find('/') != std::string::npos)
      continue;
    const auto* served = registry.find(group, version, name);
    bool custom = served != nullptr && served->custom;
    json kind = {{"group", custom ? group : ""}, {"version", custom ? version : ""}, {"kind", e.value("kind", "")}};
    json r = {{"resource", name},
              {"responseKind", kind},
              {"scope", e.value("namespaced", false) ? "Namespaced" : "Cluster"},
              {"singularResource", e.value("singularName", "")},
              {"verbs", e.value("verbs", json::array())}};
    if (e.contains("shortNames"))
      r["shortNames"] = e["shortNames"];
    if (e.contains("categories"))
      r["categories"] = e["categories"];
    json subresources = json::array();
    for (const auto& sub : entries) {
      auto sub_name = sub.value("name", std::string{});
      if (sub_name.rfind(name + "/", 0) != 0)
        continue;
      json sub_kind = {{"group", sub.value("group", custom ? group : "")},
                       {"version", sub.value("version", custom ? version : "")},
                       {"kind", sub.value("kind", "")}};
      subresources.push_back({{"subresource", sub_name.substr(name.size() + 1)},
                              {"responseKind", sub_kind},
                              {"verbs", sub.value("verbs", json::array())}});
    }
    if (!subresources.empty())
      r["subresources"] = subresources;
    resources.push_back(std::move(r));
  }
  return {{"version", version}, {"resources", resources}, {"freshness", "Current"}};
}

} // namespace

bool wants_aggregated_discovery(const std::string& accept) {
  std::stringstream ranges(accept);
  std::string range;
  while (std::getline(ranges, range, ',')) {
    std::stringstream parts(range);
    std::string part;
    bool json_type = false, group = false, version = false, as = false;
    bool first = true;
    while (std::getline(parts, part, ';')) {
      part = trimmed(part);
      if (first)
        json_type = part == "application/json";
      first = false;
      group = group || part == "g=apidiscovery.k8s.io";
      version = version || part == "v=v2";
      as = as || part == "as=APIGroupDiscoveryList";
    }
    if (json_type && group && version && as)
      return true;
  }
  return false;
}

json aggregated_discovery(const resource_registry& registry, bool core) {
  json items = json::array();
  if (core) {
    json versions = json::array();
    for (const auto& v : registry.api_versions().value("versions", json::array())) {
      auto entry = version_entry(registry, "", v.get<std::string>());
      if (!entry.is_null())
        versions.push_back(std::move(entry));
    }
    items.push_back({{"metadata", json::object()}, {"versions", versions}});
  } else {
    for (const auto& g : registry.api_group_list().value("groups", json::array())) {
      auto group = g.value("name", std::string{});
      json versions = json::array();
      for (const auto& v : g.value("versions", json::array())) {
        auto entry = version_entry(registry, group, v.value("version", std::string{}));
        if (!entry.is_null())
          versions.push_back(std::move(entry));
      }
      items.push_back({{"metadata", {{"name", group}}}, {"versions", versions}});
    }
  }
  return {{"kind", "APIGroupDiscoveryList"},
          {"apiVersion", "apidiscovery.k8s.io/v2"},
          {"metadata", json::object()},
          {"items", items}};
}

} // namespace schedopt::sim
