// Follows k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac (rbac.go, subject_locator.go)
// and pkg/apis/rbac/v1/evaluation_helpers.go; aggregated ClusterRoles are read as stored
// (no aggregation controller runs), so their rules must be written out.
#include "sim/rbac_authorizer.hpp"

#include <algorithm>

#include "sim/object_store.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

const std::string rbac_group = "rbac.authorization.k8s.io";

bool has(const json& list, const std::string& value) {
  if (!list.is_array())
    return false;
  return std::any_of(list.begin(), list.end(),
                     [&](const json& v) { return v.is_string() && v.get<std::string>() == value; });
}

bool verb_matches(const json& rule, const std::string& verb) {
  auto verbs = rule.value("verbs", json::array());
  return has(verbs, "*") || has(verbs, verb);
}

bool resource_matches(const json& rule, const request_attributes& a) {
  auto combined = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  for (auto& r : rule.value("resources", json::array())) {
    if (!r.is_string())
      continue;
    auto value = r.get<std::string>();
    if (value == "*" || value == combined)
      return true;
    if (!a.subresource.empty() && value == "*/" + a.subresource)
      return true;
  }
  return false;
}

bool resource_name_matches(const json& rule, const std::string& name) {
  auto names = rule.value("resourceNames", json::array());
  return names.empty() || has(names, name);
}

bool non_resource_url_matches(const json& rule, const std::string& path) {
  for (auto& u : rule.value("nonResourceURLs", json::array())) {
    if (!u.is_string())
      continue;
    auto value = u.get<std::string>();
    if (value == "*" || value == path)
      return true;
    if (!value.empty() && value.back() == '*' && path.rfind(value.substr(0, value.size() - 1), 0) == 0)
      return true;
  }
  return false;
}

/// The rules a binding's roleRef names; empty when the role does not exist (RBAC then
/// grants nothing through that binding).
json referenced_rules(const object_store& store, const json& binding, const std::string& binding_ns) {
  auto ref = binding.value("roleRef", json::object());
  auto kind = ref.value("kind", "");
  auto name = ref.value("name", "");
  expected<json> role = make_error(ec::not_found, "no role");
  if (kind == "ClusterRole")
    role = store.get("clusterroles." + rbac_group, "", name);
  else if (kind == "Role" && !binding_ns.empty())
    role = store.get("roles." + rbac_group, binding_ns, name);
  if (!role)
    return json::array();
  auto rules = role->value("rules", json::array());
  return rules.is_array() ? rules : json::array();
}

bool binding_grants(const object_store& store, const json& binding, const std::string& binding_ns,
                    const user_info& user, const request_attributes& attrs) {
  auto subjects = binding.value("subjects", json::array());
  if (!subjects.is_array())
    return false;
  bool named = std::any_of(subjects.begin(), subjects.end(), [&](const json& s) {
    return subject_matches(s, user, binding_ns);
  });
  if (!named)
    return false;
  for (auto& rule : referenced_rules(store, binding, binding_ns))
    if (rule.is_object() && rule_allows(rule, attrs))
      return true;
  return false;
}

} // namespace

bool rule_allows(const json& rule, const request_attributes& a) {
  if (!verb_matches(rule, a.verb))
    return false;
  if (!a.resource_request)
    return non_resource_url_matches(rule, a.path);
  auto groups = rule.value("apiGroups", json::array());
  return (has(groups, "*") || has(groups, a.group)) && resource_matches(rule, a)
         && resource_name_matches(rule, a.name);
}

bool subject_matches(const json& subject, const user_info& user, const std::string& binding_ns) {
  if (!subject.is_object())
    return false;
  auto kind = subject.value("kind", "");
  auto name = subject.value("name", "");
  if (kind == "User")
    return name == user.name;
  if (kind == "Group")
    return std::find(user.groups.begin(), user.groups.end(), name) != user.groups.end();
  if (kind == "ServiceAccount") {
    auto ns = subject.value("namespace", "");
    if (ns.empty())
      ns = binding_ns;
    return !ns.empty() && user.name == "system:serviceaccount:" + ns + ":" + name;
  }
  return false;
}

bool rbac_allows(const object_store& store, const user_info& user, const request_attributes& attrs) {
  for (auto& binding : store.list("clusterrolebindings." + rbac_group).items)
    if (binding_grants(store, binding, "", user, attrs))
      return true;
  // Namespaced grants reach only requests in that namespace (a cluster-wide list or a
  // cluster-scoped object needs a ClusterRoleBinding).
  if (!attrs.resource_request || attrs.ns.empty())
    return false;
  for (auto& binding : store.list("rolebindings." + rbac_group, attrs.ns).items)
    if (binding_grants(store, binding, attrs.ns, user, attrs))
      return true;
  return false;
}

} // namespace schedopt::sim
