// URL building.
#include "k8s/paths.hpp"

#include <memory>

#include <curl/curl.h>

namespace schedopt::k8s {

std::string collection_path(const resource& res, const std::string& ns) {
  std::string path = res.group.empty() ? "/api/" + res.version
                                       : "/apis/" + res.group + "/" + res.version;
  if (res.namespaced && !ns.empty())
    path += "/namespaces/" + url_encode(ns);
  path += "/" + res.plural;
  return path;
}

std::string object_path(const resource& res, const std::string& ns, const std::string& name,
                        const std::string& subresource) {
  auto path = collection_path(res, res.namespaced && ns.empty() ? "default" : ns);
  path += "/" + url_encode(name);
  if (!subresource.empty())
    path += "/" + subresource;
  return path;
}

std::string url_encode(const std::string& value) {
  // libcurl >= 7.82 ignores the handle; RFC 3986 unreserved characters stay as they are.
  std::unique_ptr<char, decltype(&curl_free)> escaped{
    curl_easy_escape(nullptr, value.data(), static_cast<int>(value.size())), &curl_free};
  return escaped ? std::string{escaped.get()} : std::string{};
}

std::string query_string(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (auto& [k, v] : params) {
    if (v.empty())
      continue;
    out += out.empty() ? '?' : '&';
    out += k;
    out += '=';
    out += url_encode(v);
  }
  return out;
}

} // namespace schedopt::k8s
