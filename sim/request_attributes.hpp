// What an HTTP request asks to do, in the terms Kubernetes authorizes it by (apiserver's
// RequestInfo: verb, API group, resource, subresource, namespace, name, or a plain path),
// and the 403 Status the API server answers when that is denied.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace httplib {
struct Request;
} // namespace httplib

namespace schedopt::sim {

/// The non-empty segments of a URL path ("/api/v1/nodes" -> api, v1, nodes).
std::vector<std::string> split_path(const std::string& path);

/// Who sent a request, as an authenticator names it.
struct user_info {
  std::string name;                // "system:serviceaccount:<ns>:<name>"
  std::vector<std::string> groups; // "system:serviceaccounts", ..., "system:authenticated"
  std::string uid;                 // the ServiceAccount's uid; empty for other users
};

struct request_attributes {
  bool resource_request = false;
  std::string verb; // get list watch create update patch delete deletecollection; else the
                    // lower-case HTTP method for a non-resource path
  std::string group;
  std::string version;
  std::string resource;
  std::string subresource;
  std::string ns;
  std::string name;
  std::string path; // the URL path, for non-resource requests
};

/// As apiserver's RequestInfoFactory: /api/<v>/... and /apis/<g>/<v>/... with something
/// after the version are resource requests (/namespaces/<ns> prefix, legacy /watch/
/// prefix, `?watch=true`, a list narrowed by fieldSelector metadata.name=X naming X);
/// everything else (discovery, /version, /admin) is a non-resource path.
request_attributes attributes_of(const httplib::Request& req);

/// responsewriters.Forbidden: 403 Forbidden, message `<resource>[.<group>] ["<name>"] is
/// forbidden: User "<user>" cannot <verb> resource "<resource>[/<sub>]" in API group
/// "<group>" (in the namespace "<ns>" | at the cluster scope)`, details name/group/kind.
nlohmann::json forbidden_status(const user_info& user, const request_attributes& attrs);

} // namespace schedopt::sim
