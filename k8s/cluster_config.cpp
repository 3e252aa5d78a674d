// kubeconfig (yaml-cpp) and in-cluster service-account configuration.
#include "k8s/cluster_config.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <sys/stat.h>

#include <yaml-cpp/yaml.h>

namespace schedopt::k8s {

namespace {

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

expected<std::string> read_file(const std::string& path, const std::string& what) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return make_error(ec::config_error, what + ": cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
    ++i;
  return s.substr(i);
}

std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string resolve(const std::string& base_dir, const std::string& p) {
  if (p.empty() || p.front() == '/')
    return p;
  return base_dir + "/" + p;
}

// Finds `name` in a list of {name: ..., <field>: {...}} entries.
YAML::Node find_named(const YAML::Node& list, const std::string& name, const char* field) {
  if (!list || !list.IsSequence())
    return YAML::Node{};
  for (const auto& entry : list)
    if (entry.IsMap() && entry["name"] && entry["name"].as<std::string>("") == name)
      return entry[field];
  return YAML::Node{};
}

std::string str(const YAML::Node& map, const char* key) {
  if (!map || !map.IsMap() || !map[key])
    return {};
  return map[key].as<std::string>("");
}

} // namespace

expected<std::string> decode_base64(const std::string& text, const std::string& what) {
  auto value = [](unsigned char c) -> int {
    if (c >= 'A' && c <= 'Z')
      return c - 'A';
    if (c >= 'a' && c <= 'z')
      return c - 'a' + 26;
    if (c >= '0' && c <= '9')
      return c - '0' + 52;
    if (c == '+' || c == '-')
      return 62;
    if (c == '/' || c == '_')
      return 63;
    return -1;
  };
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  int pad = 0;
  for (unsigned char c : text) {
    if (std::isspace(c))
      continue;
    if (c == '=') {
      ++pad;
      continue;
    }
    if (pad > 0)
      return make_error(ec::config_error, what + ": invalid base64 (data after '=')");
    int v = value(c);
    if (v < 0)
      return make_error(ec::config_error,
                        what + ": invalid base64 (unexpected character '" + std::string(1, c) + "')");
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  if (bits >= 6 || pad > 2)
    return make_error(ec::config_error, what + ": invalid base64 (truncated)");
  return out;
}

expected<cluster_config> load_kubeconfig(const std::string& path, const std::string& context) {
  auto fail = [&](const std::string& what) {
    return make_error(ec::config_error, "kubeconfig " + path + ": " + what);
  };
  if (!file_exists(path))
    return fail("file not found");
  std::ifstream in{path, std::ios::binary};
  if (!in) // the words yaml-cpp's LoadFile used for an unopenable file, kept for the logs
    return fail("invalid YAML at line 0: bad file: " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_kubeconfig(text.str(), path, context);
}

expected<cluster_config> parse_kubeconfig(const std::string& text, const std::string& path,
                                          const std::string& context) {
  auto fail = [&](const std::string& what) {
    return make_error(ec::config_error, "kubeconfig " + path + ": " + what);
  };
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return fail("invalid YAML at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.IsMap())
    return fail("not a kubeconfig (expected a mapping with clusters, users, contexts)");
  try {
    auto ctx_name = context.empty() ? str(root, "current-context") : context;
    if (ctx_name.empty())
      return fail("current-context is not set (pass --context)");
    auto ctx = find_named(root["contexts"], ctx_name, "context");
    if (!ctx || !ctx.IsMap())
      return fail("context \"" + ctx_name + "\" not found in contexts");
    auto cluster_name = str(ctx, "cluster");
    auto user_name = str(ctx, "user");
    if (cluster_name.empty())
      return fail("context \"" + ctx_name + "\": cluster missing");
    auto cluster = find_named(root["clusters"], cluster_name, "cluster");
    if (!cluster || !cluster.IsMap())
      return fail("cluster \"" + cluster_name + "\" not found in clusters");
    cluster_config cfg;
    auto base = dir_of(path);
    cfg.source = "kubeconfig " + path + " (context " + ctx_name + ")";
    cfg.server = str(cluster, "server");
    if (cfg.server.empty())
      return fail("cluster \"" + cluster_name + "\": server missing");
    while (!cfg.server.empty() && cfg.server.back() == '/')
      cfg.server.pop_back();
    if (cfg.server.rfind("https://", 0) != 0 && cfg.server.rfind("http://", 0) != 0)
      return fail("cluster \"" + cluster_name + "\": server \"" + cfg.server
                  + "\" is not an http(s) URL");
    cfg.ca_file = resolve(base, str(cluster, "certificate-authority"));
    if (auto data = str(cluster, "certificate-authority-data"); !data.empty()) {
      auto pem = decode_base64(data, "kubeconfig " + path + ": cluster \"" + cluster_name
                                       + "\": certificate-authority-data");
      if (!pem)
        return pem.err();
      cfg.ca_data = *pem;
    }
    if (cluster["insecure-skip-tls-verify"])
      cfg.insecure_skip_tls_verify = cluster["insecure-skip-tls-verify"].as<bool>(false);
    if (!cfg.ca_file.empty() && !file_exists(cfg.ca_file))
      return fail("cluster \"" + cluster_name + "\": certificate-authority " + cfg.ca_file
                  + " not found");
    if (!user_name.empty()) {
      auto user = find_named(root["users"], user_name, "user");
      if (!user)
        return fail("user \"" + user_name + "\" not found in users");
      auto where = "kubeconfig " + path + ": user \"" + user_name + "\": ";
      cfg.token = str(user, "token");
      cfg.token_file = resolve(base, str(user, "tokenFile"));
      cfg.client_cert_file = resolve(base, str(user, "client-certificate"));
      cfg.client_key_file = resolve(base, str(user, "client-key"));
      if (auto d = str(user, "client-certificate-data"); !d.empty()) {
        auto pem = decode_base64(d, where + "client-certificate-data");
        if (!pem)
          return pem.err();
        cfg.client_cert_data = *pem;
      }
      if (auto d = str(user, "client-key-data"); !d.empty()) {
        auto pem = decode_base64(d, where + "client-key-data");
        if (!pem)
          return pem.err();
        cfg.client_key_data = *pem;
      }
      if (!cfg.token_file.empty() && cfg.token.empty()) {
        auto tok = read_file(cfg.token_file, where + "tokenFile");
        if (!tok)
          return tok.err();
        cfg.token = trim(*tok);
      }
      bool has_cert = !cfg.client_cert_file.empty() || !cfg.client_cert_data.empty();
      bool has_key = !cfg.client_key_file.empty() || !cfg.client_key_data.empty();
      if (has_cert != has_key)
        return fail("user \"" + user_name + "\": client-certificate and client-key must be set together");
    }
    if (auto ns = str(ctx, "namespace"); !ns.empty())
      cfg.namespace_ = ns;
    return cfg;
  } catch (const YAML::Exception& e) {
    return fail("unexpected structure: " + e.msg);
  }
}

expected<cluster_config> load_in_cluster(const std::string& root) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !*host || !port || !*port)
    return make_error(ec::config_error,
                      "in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
  cluster_config cfg;
  std::string h = host;
  if (h.find(':') != std::string::npos && h.front() != '[')
    h = "[" + h + "]"; // IPv6
  cfg.server = "https://" + h + ":" + port;
  cfg.token_file = root + "/token";
  auto tok = read_file(cfg.token_file, "in-cluster config: token");
  if (!tok)
    return tok.err();
  cfg.token = trim(*tok);
  cfg.ca_file = root + "/ca.crt";
  if (!file_exists(cfg.ca_file))
    return make_error(ec::config_error, "in-cluster config: ca.crt: cannot read " + cfg.ca_file);
  if (auto ns = read_file(root + "/namespace", "namespace"); ns && !trim(*ns).empty())
    cfg.namespace_ = trim(*ns);
  cfg.source = "in-cluster";
  return cfg;
}

expected<cluster_config> load_cluster_config(const std::string& kubeconfig_flag,
                                             const std::string& context) {
  if (!kubeconfig_flag.empty())
    return load_kubeconfig(kubeconfig_flag, context);
  if (const char* env = std::getenv("KUBECONFIG"); env && *env) {
    std::string list = env;
    std::string first;
    size_t start = 0;
    while (start <= list.size()) {
      auto colon = list.find(':', start);
      auto entry = list.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (!entry.empty() && first.empty())
        first = entry;
      if (!entry.empty() && file_exists(entry))
        return load_kubeconfig(entry, context);
      if (colon == std::string::npos)
        break;
      start = colon + 1;
    }
    if (!first.empty())
      return load_kubeconfig(first, context); // reports "file not found"
  }
  if (const char* host = std::getenv("KUBERNETES_SERVICE_HOST"); host && *host)
    return load_in_cluster();
  const char* home = std::getenv("HOME");
  return load_kubeconfig(std::string{home ? home : ""} + "/.kube/config", context);
}

} // namespace schedopt::k8s
