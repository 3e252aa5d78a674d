// Token issuing and the kubelet's projected-volume layout (token and namespace without
// a trailing newline, ca.crt as PEM).
#include "sim/service_accounts.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "sim/kubeconfig_writer.hpp"
#include "sim/object_store.hpp"
#include "sim/scenario_objects.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

std::string base64url(const std::string& data) {
  auto out = base64_encode(data);
  for (auto& c : out)
    c = c == '+' ? '-' : c == '/' ? '_' : c;
  while (!out.empty() && out.back() == '=')
    out.pop_back();
  return out;
}

std::string random_bytes(std::size_t n) {
  std::random_device rd;
  std::string out;
  for (std::size_t i = 0; i < n; ++i)
    out += static_cast<char>(rd() & 0xff);
  return out;
}

std::string jwt_for(const std::string& ns, const std::string& name, const std::string& uid) {
  auto now = std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch()).count();
  json header = {{"alg", "RS256"}, {"kid", "schedopt-sim"}};
  json claims = {{"aud", {"https://kubernetes.default.svc"}},
                 {"exp", now + 365 * 24 * 3600},
                 {"iat", now},
                 {"iss", "https://kubernetes.default.svc"},
                 {"kubernetes.io", {{"namespace", ns}, {"serviceaccount", {{"name", name}, {"uid", uid}}}}},
                 {"nbf", now},
                 {"sub", "system:serviceaccount:" + ns + ":" + name}};
  return base64url(header.dump()) + "." + base64url(claims.dump()) + "." + base64url(random_bytes(64));
}

bool write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc | std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

} // namespace

expected<std::string> service_account_tokens::issue(object_store& store, const std::string& ns,
                                                    const std::string& name) {
  if (!store.get("namespaces", "", ns)) {
    auto created = store.create("namespaces", namespace_object(ns));
    if (!created && created.err().code != ec::already_exists)
      return created.err();
  }
  auto sa = store.get("serviceaccounts", ns, name);
  if (!sa)
    sa = store.create("serviceaccounts", {{"apiVersion", "v1"},
                                          {"kind", "ServiceAccount"},
                                          {"metadata", {{"name", name}, {"namespace", ns}}}});
  if (!sa)
    return make_error(sa.err().code, "cannot create ServiceAccount " + ns + "/" + name + ": "
                                       + sa.err().message);
  auto uid = sa->value("/metadata/uid"_json_pointer, std::string{});
  auto token = jwt_for(ns, name, uid);
  tokens_[token] = {ns, name, uid};
  return token;
}

std::optional<user_info> service_account_tokens::authenticate(const object_store& store,
                                                              const std::string& token) const {
  auto it = tokens_.find(token);
  if (it == tokens_.end())
    return std::nullopt;
  const auto& a = it->second;
  auto sa = store.get("serviceaccounts", a.ns, a.name);
  if (!sa || sa->value("/metadata/uid"_json_pointer, std::string{}) != a.uid)
    return std::nullopt;
  return user_info{"system:serviceaccount:" + a.ns + ":" + a.name,
                   {"system:serviceaccounts", "system:serviceaccounts:" + a.ns, "system:authenticated"},
                   a.uid};
}

expected<bool> write_service_account_dir(const std::string& dir, const std::string& token,
                                         const std::string& ca_pem, const std::string& ns) {
  namespace fs = std::filesystem;
  std::error_code err;
  fs::create_directories(dir, err);
  if (err)
    return make_error(ec::config_error, "cannot create \"" + dir + "\": " + err.message());
  fs::path base(dir);
  if (!write_file(base / "token", token) || !write_file(base / "ca.crt", ca_pem)
      || !write_file(base / "namespace", ns))
    return make_error(ec::config_error, "cannot write the service account files into \"" + dir + "\"");
  return true;
}

} // namespace schedopt::sim
