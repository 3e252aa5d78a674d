// URL building.
#include "k8s/paths.hpp"

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
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
        || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
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
