// Kubernetes' RBAC authorizer over the RBAC objects in the simulator's store:
// ClusterRoleBindings grant their ClusterRole everywhere, RoleBindings grant their Role
// or ClusterRole in their own namespace.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/request_attributes.hpp"

namespace schedopt::sim {

class object_store;

/// One PolicyRule against a request: verbs, apiGroups, resources (`*`, `res/sub`,
/// `*/sub`), resourceNames (when present) for resource requests; verbs and
/// nonResourceURLs (exact or `prefix*`) for non-resource paths.
bool rule_allows(const nlohmann::json& rule, const request_attributes& attrs);

/// Whether a binding subject (ServiceAccount, User, Group) names `user`; a
/// ServiceAccount subject without a namespace means `binding_ns` (RoleBindings only).
bool subject_matches(const nlohmann::json& subject, const user_info& user,
                     const std::string& binding_ns);

/// rbac.authorizer.Authorize: true when any binding that names `user` and applies
/// where the request is grants a rule that allows it.
bool rbac_allows(const object_store& store, const user_info& user, const request_attributes& attrs);

} // namespace schedopt::sim
