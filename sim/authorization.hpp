// The simulated API server's authorizer chain (--authorization): always-allow (every
// authenticated caller may do anything, the default), or rbac as a cluster with
// kube-apiserver --authorization-mode=RBAC and its bootstrap roles answers.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/error.hpp"
#include "sim/request_attributes.hpp"

namespace httplib {
struct Request;
} // namespace httplib

namespace schedopt::sim {

class object_store;

enum class authorization_mode { always_allow, rbac };

/// "always-allow" or "rbac".
expected<authorization_mode> parse_authorization_mode(const std::string& text);

/// The authorizer chain on a request's attributes: always-allow; or, under rbac,
/// system:masters, then the bootstrap discovery grants, then the stored RBAC objects.
bool authorizes(authorization_mode mode, const object_store& store, const user_info& user,
                const request_attributes& attrs);

/// Decides a request of a non-admin `user`: null when allowed, else the 403 Status body.
/// Under rbac, discovery paths are allowed to everyone authenticated (the bootstrap
/// system:discovery and system:public-info-viewer roles), /admin/* never, and everything
/// else by the RBAC objects in `store`.
nlohmann::json denial_of(authorization_mode mode, const object_store& store,
                         const user_info& user, const httplib::Request& req);

} // namespace schedopt::sim
