#include "sim/aggregated_discovery.hpp"

#include <algorithm>
#include <vector>

#include "sim/media_ranges.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

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
  for (const auto& range : media_ranges(accept)) {
    auto has = [&](const char* param) {
      return std::find(range.params.begin(), range.params.end(), param) != range.params.end();
    };
    if (range.type == "application/json" && has("g=apidiscovery.k8s.io") && has("v=v2")
        && has("as=APIGroupDiscoveryList"))
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
