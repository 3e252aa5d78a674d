// Mirrors k8s.io/apiserver/pkg/endpoints/request.RequestInfoFactory and
// k8s.io/apiserver/pkg/endpoints/handlers/responsewriters.forbiddenMessage.
#include "sim/request_attributes.hpp"

#include <algorithm>
#include <cctype>

#include <httplib.h>

#include "sim/api_server_status.hpp"

namespace schedopt::sim {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < path.size()) {
    auto next = path.find('/', i);
    if (next == std::string::npos)
      next = path.size();
    if (next > i)
      out.push_back(path.substr(i, next - i));
    i = next + 1;
  }
  return out;
}

namespace {

bool truthy(const std::string& v) {
  return v == "1" || v == "true" || v == "t" || v == "True" || v == "TRUE";
}

/// The X of a fieldSelector that is exactly `metadata.name=X` (or `==`), else "".
std::string selected_name(const std::string& selector) {
  for (const char* prefix : {"metadata.name==", "metadata.name="}) {
    std::string p = prefix;
    if (selector.rfind(p, 0) == 0 && selector.find(',') == std::string::npos)
      return selector.substr(p.size());
  }
  return {};
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

} // namespace

request_attributes attributes_of(const httplib::Request& req) {
  request_attributes a;
  a.path = req.path;
  a.verb = lower(req.method);
  auto parts = split_path(req.path);
  std::size_t at = 0;
  if (parts.size() >= 3 && parts[0] == "api") {
    a.version = parts[1];
    at = 2;
  } else if (parts.size() >= 4 && parts[0] == "apis") {
    a.group = parts[1];
    a.version = parts[2];
    at = 3;
  } else {
    return a;
  }
  a.resource_request = true;
  std::vector<std::string> rest(parts.begin() + static_cast<long>(at), parts.end());
  if (req.method == "POST")
    a.verb = "create";
  else if (req.method == "GET" || req.method == "HEAD")
    a.verb = "get";
  else if (req.method == "PUT")
    a.verb = "update";
  else if (req.method == "PATCH")
    a.verb = "patch";
  else if (req.method == "DELETE")
    a.verb = "delete";
  if (!rest.empty() && rest[0] == "watch") {
    a.verb = "watch";
    rest.erase(rest.begin());
  }
  // namespaces/<ns>/<resource>/...; namespaces/<ns>[/status|/finalize] is the namespace
  // object itself, and still carries <ns> as the request's namespace.
  if (!rest.empty() && rest[0] == "namespaces" && rest.size() > 1) {
    a.ns = rest[1];
    if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize")
      rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (!rest.empty())
    a.resource = rest[0];
  if (rest.size() >= 2)
    a.name = rest[1];
  if (rest.size() >= 3)
    a.subresource = rest[2];
  if (a.name.empty() && a.verb == "get")
    a.verb = req.has_param("watch") && truthy(req.get_param_value("watch")) ? "watch" : "list";
  if (a.name.empty() && a.verb == "delete")
    a.verb = "deletecollection";
  if (a.name.empty() && (a.verb == "list" || a.verb == "watch") && req.has_param("fieldSelector"))
    a.name = selected_name(req.get_param_value("fieldSelector"));
  return a;
}

nlohmann::json forbidden_status(const user_info& user, const request_attributes& a) {
  std::string reason;
  if (!a.resource_request) {
    reason = "User \"" + user.name + "\" cannot " + a.verb + " path \"" + a.path + "\"";
    return status_failure(403, "Forbidden", "forbidden: " + reason, nlohmann::json::object());
  }
  auto resource = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  reason = "User \"" + user.name + "\" cannot " + a.verb + " resource \"" + resource
           + "\" in API group \"" + a.group + "\"";
  reason += a.ns.empty() ? std::string{" at the cluster scope"} : " in the namespace \"" + a.ns + "\"";
  // apierrors.NewForbidden(GroupResource, name, err): the resource without subresource.
  auto qualified = a.group.empty() ? a.resource : a.resource + "." + a.group;
  auto message = a.name.empty() ? qualified + " is forbidden: " + reason
                                : qualified + " \"" + a.name + "\" is forbidden: " + reason;
  nlohmann::json details = nlohmann::json::object();
  if (!a.name.empty())
    details["name"] = a.name;
  if (!a.group.empty())
    details["group"] = a.group;
  details["kind"] = a.resource;
  return status_failure(403, "Forbidden", message, details);
}

} // namespace schedopt::sim
