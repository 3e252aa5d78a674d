// Authorizer chain: admin-only simulator endpoints, bootstrap discovery and basic-user
// grants, RBAC.
#include "sim/authorization.hpp"

#include <algorithm>

#include <httplib.h>

#include "sim/rbac_authorizer.hpp"

namespace schedopt::sim {

namespace {

/// The nonResourceURLs rule of system:discovery plus system:public-info-viewer.
const nlohmann::json& discovery_rule() {
  static const nlohmann::json rule = {
    {"verbs", {"get"}},
    {"nonResourceURLs",
     {"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*",
      "/readyz", "/version", "/version/"}}};
  return rule;
}

/// The rules of system:basic-user, bound to system:authenticated: anyone may ask who they
/// are and what they may do (kubernetes v1.37.2 plugin/pkg/auth/authorizer/rbac/
/// bootstrappolicy/policy.go, ClusterRoles).
const nlohmann::json& basic_user_rules() {
  static const nlohmann::json rules = nlohmann::json::array(
    {{{"verbs", {"create"}},
      {"apiGroups", {"authorization.k8s.io"}},
      {"resources", {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}}},
     {{"verbs", {"create"}}, {"apiGroups", {"authentication.k8s.io"}}, {"resources", {"selfsubjectreviews"}}}});
  return rules;
}

bool admin_only(const request_attributes& a) {
  return !a.resource_request && (a.path == "/admin" || a.path.rfind("/admin/", 0) == 0);
}

} // namespace

expected<authorization_mode> parse_authorization_mode(const std::string& text) {
  if (text == "always-allow")
    return authorization_mode::always_allow;
  if (text == "rbac")
    return authorization_mode::rbac;
  return make_error(ec::config_error,
                    "invalid value \"" + text + "\" for --authorization: expected always-allow or rbac");
}

bool authorizes(authorization_mode mode, const object_store& store, const user_info& user,
                const request_attributes& attrs) {
  if (mode == authorization_mode::always_allow)
    return true;
  // kube-apiserver puts the privileged-group authorizer before RBAC (kubernetes v1.36.3
  // pkg/kubeapiserver/authorizer/config.go, authorizerfactory.NewPrivilegedGroups).
  if (std::find(user.groups.begin(), user.groups.end(), "system:masters") != user.groups.end())
    return true;
  if (!attrs.resource_request && rule_allows(discovery_rule(), attrs))
    return true;
  if (attrs.resource_request)
    for (const auto& rule : basic_user_rules())
      if (rule_allows(rule, attrs))
        return true;
  return rbac_allows(store, user, attrs);
}

nlohmann::json denial_of(authorization_mode mode, const object_store& store, const user_info& user,
                         const httplib::Request& req) {
  if (mode == authorization_mode::always_allow)
    return nullptr;
  auto attrs = attributes_of(req);
  if (admin_only(attrs))
    return forbidden_status(user, attrs);
  if (authorizes(mode, store, user, attrs))
    return nullptr;
  return forbidden_status(user, attrs);
}

} // namespace schedopt::sim
