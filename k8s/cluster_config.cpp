// kubeconfig (yaml-cpp), $KUBECONFIG lists merged as kubectl merges them, and in-cluster
// service-account configuration.
#include "k8s/cluster_config.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
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

// loader.go ResolvePaths: filepath.Join, which also cleans "./" and "dir/.." away.
std::string resolve(const std::string& base_dir, const std::string& p) {
  if (p.empty() || p.front() == '/')
    return p;
  return std::filesystem::path{base_dir + "/" + p}.lexically_normal().string();
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

namespace {

// A cluster, user or context with the file that defined it: relative paths in it resolve
// against that file's directory and its errors name that file (client-go keeps the same
// as LocationOfOrigin, used by ResolveLocalPaths in tools/clientcmd/loader.go).
struct named_entry {
  YAML::Node body;
  std::string origin;
};

// Every file of a kubeconfig list folded into one, as ClientConfigLoadingRules.Load in
// tools/clientcmd/loader.go does: map entries merged so that the first file to name one
// keeps it whole, and current-context from the first file that sets it.
struct merged_kubeconfig {
  std::map<std::string, named_entry> clusters;
  std::map<std::string, named_entry> users;
  std::map<std::string, named_entry> contexts;
  std::string current_context;
  std::vector<std::string> files; // loaded, in order: errors not tied to an entry name them
};

error kubeconfig_error(const std::string& where, const std::string& what) {
  return make_error(ec::config_error, "kubeconfig " + where + ": " + what);
}

void add_entries(std::map<std::string, named_entry>& into, const YAML::Node& list,
                 const char* field, const std::string& origin) {
  if (!list || !list.IsSequence())
    return;
  for (const auto& entry : list) {
    if (!entry.IsMap() || !entry["name"])
      continue;
    auto name = entry["name"].as<std::string>("");
    into.emplace(name, named_entry{entry[field], origin}); // an earlier definition stays
  }
}

// Folds one file's text into `m`; an error when it is not YAML or not a mapping.
std::optional<error> add_file(merged_kubeconfig& m, const std::string& text,
                              const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return kubeconfig_error(path, "invalid YAML at line " + std::to_string(e.mark.line + 1)
                                    + ": " + e.msg);
  }
  if (!root.IsMap())
    return kubeconfig_error(path, "not a kubeconfig (expected a mapping with clusters, users, contexts)");
  try {
    add_entries(m.clusters, root["clusters"], "cluster", path);
    add_entries(m.users, root["users"], "user", path);
    add_entries(m.contexts, root["contexts"], "context", path);
    if (m.current_context.empty())
      m.current_context = str(root, "current-context");
  } catch (const YAML::Exception& e) {
    return kubeconfig_error(path, "unexpected structure: " + e.msg);
  }
  m.files.push_back(path);
  return std::nullopt;
}

std::string joined(const std::vector<std::string>& files) {
  std::string out;
  for (const auto& f : files)
    out += (out.empty() ? "" : ":") + f;
  return out;
}

// The user's `exec` stanza (tools/clientcmd/api/types.go ExecConfig). Refuses what an
// unattended process cannot do: client-go's isInteractive fails interactiveMode Always
// without a terminal, and schedopt never has one.
expected<exec_config> read_exec(const YAML::Node& node, const std::string& user_name,
                                const std::string& origin) {
  auto fail = [&](const std::string& what) {
    return kubeconfig_error(origin, "user \"" + user_name + "\": exec: " + what);
  };
  if (!node.IsMap())
    return fail("not a mapping");
  exec_config x;
  x.user = user_name;
  x.command = str(node, "command");
  if (x.command.empty())
    return fail("command missing");
  // loader.go GetAuthInfoFileReferences: only a command with a path separator is a path;
  // a bare name is looked up in PATH.
  if (x.command.find('/') != std::string::npos)
    x.command = resolve(dir_of(origin), x.command);
  x.api_version = str(node, "apiVersion");
  if (x.api_version != "client.authentication.k8s.io/v1"
      && x.api_version != "client.authentication.k8s.io/v1beta1")
    return fail("apiVersion \"" + x.api_version
                + "\" is not supported (client.authentication.k8s.io/v1 or /v1beta1)");
  if (auto args = node["args"]; args && args.IsSequence())
    for (const auto& a : args)
      x.args.push_back(a.as<std::string>(""));
  if (auto env = node["env"]; env && env.IsSequence())
    for (const auto& e : env) {
      auto name = str(e, "name");
      if (name.empty())
        return fail("env entry without a name");
      x.env.emplace_back(name, str(e, "value"));
    }
  x.install_hint = str(node, "installHint");
  if (node["provideClusterInfo"])
    x.provide_cluster_info = node["provideClusterInfo"].as<bool>(false);
  auto mode = str(node, "interactiveMode");
  if (mode == "Always")
    return fail("plugin \"" + x.command
                + "\" has interactiveMode Always: it needs a terminal and schedopt runs without one");
  if (!mode.empty() && mode != "Never" && mode != "IfAvailable")
    return fail("unknown interactiveMode \"" + mode + "\"");
  return x;
}

// The chosen context's cluster and user as a cluster_config (client-go
// tools/clientcmd/client_config.go: getContext, getCluster, getAuthInfo and
// getUserIdentificationPartialConfig).
expected<cluster_config> resolve_context(const merged_kubeconfig& m, const std::string& context) {
  auto all = joined(m.files);
  auto ctx_name = context.empty() ? m.current_context : context;
  if (ctx_name.empty())
    return kubeconfig_error(all, "current-context is not set (pass --context)");
  auto ctx_it = m.contexts.find(ctx_name);
  if (ctx_it == m.contexts.end() || !ctx_it->second.body.IsMap())
    return kubeconfig_error(all, "context \"" + ctx_name + "\" not found in contexts");
  const auto& ctx = ctx_it->second;
  auto cluster_name = str(ctx.body, "cluster");
  auto user_name = str(ctx.body, "user");
  if (cluster_name.empty())
    return kubeconfig_error(ctx.origin, "context \"" + ctx_name + "\": cluster missing");
  auto cluster_it = m.clusters.find(cluster_name);
  if (cluster_it == m.clusters.end() || !cluster_it->second.body.IsMap())
    return kubeconfig_error(ctx.origin, "cluster \"" + cluster_name + "\" not found in clusters");
  const auto& cluster = cluster_it->second;
  auto cluster_fail = [&](const std::string& what) {
    return kubeconfig_error(cluster.origin, "cluster \"" + cluster_name + "\": " + what);
  };
  cluster_config cfg;
  cfg.source = "kubeconfig " + all + " (context " + ctx_name + ")";
  cfg.server = str(cluster.body, "server");
  if (cfg.server.empty())
    return cluster_fail("server missing");
  while (!cfg.server.empty() && cfg.server.back() == '/')
    cfg.server.pop_back();
  if (cfg.server.rfind("https://", 0) != 0 && cfg.server.rfind("http://", 0) != 0)
    return cluster_fail("server \"" + cfg.server + "\" is not an http(s) URL");
  cfg.ca_file = resolve(dir_of(cluster.origin), str(cluster.body, "certificate-authority"));
  if (auto data = str(cluster.body, "certificate-authority-data"); !data.empty()) {
    auto pem = decode_base64(data, "kubeconfig " + cluster.origin + ": cluster \"" + cluster_name
                                     + "\": certificate-authority-data");
    if (!pem)
      return pem.err();
    cfg.ca_data = *pem;
  }
  if (cluster.body["insecure-skip-tls-verify"])
    cfg.insecure_skip_tls_verify = cluster.body["insecure-skip-tls-verify"].as<bool>(false);
  if (!cfg.ca_file.empty() && !file_exists(cfg.ca_file))
    return cluster_fail("certificate-authority " + cfg.ca_file + " not found");
  if (!user_name.empty()) {
    auto user_it = m.users.find(user_name);
    if (user_it == m.users.end() || !user_it->second.body)
      return kubeconfig_error(ctx.origin, "user \"" + user_name + "\" not found in users");
    const auto& user = user_it->second.body;
    const auto& origin = user_it->second.origin;
    auto base = dir_of(origin);
    auto where = "kubeconfig " + origin + ": user \"" + user_name + "\": ";
    auto user_fail = [&](const std::string& what) {
      return kubeconfig_error(origin, "user \"" + user_name + "\": " + what);
    };
    // Refused rather than ignored: ignoring them would surface as a bare 401 later.
    if (auto provider = user["auth-provider"]; provider && !provider.IsNull())
      return user_fail("auth-provider \"" + str(provider, "name")
                       + "\" is not supported; use an exec credential plugin");
    if (!str(user, "username").empty() || !str(user, "password").empty())
      return user_fail("basic auth (username/password) is not supported; use a token, a client "
                       "certificate or an exec credential plugin");
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
    // client_config.go getUserIdentificationPartialConfig: a token wins over tokenFile,
    // which is read only when there is none.
    if (!cfg.token_file.empty() && cfg.token.empty()) {
      auto tok = read_file(cfg.token_file, where + "tokenFile");
      if (!tok)
        return tok.err();
      cfg.token = trim(*tok);
    }
    bool has_cert = !cfg.client_cert_file.empty() || !cfg.client_cert_data.empty();
    bool has_key = !cfg.client_key_file.empty() || !cfg.client_key_data.empty();
    if (has_cert != has_key)
      return user_fail("client-certificate and client-key must be set together");
    if (auto exec = user["exec"]; exec && !exec.IsNull()) {
      auto x = read_exec(exec, user_name, origin);
      if (!x)
        return x.err();
      // provideClusterInfo hands the plugin the cluster it authenticates to.
      x->server = cfg.server;
      x->ca_data = cfg.ca_data;
      if (x->ca_data.empty() && !cfg.ca_file.empty())
        if (auto pem = read_file(cfg.ca_file, "certificate-authority"))
          x->ca_data = *pem;
      x->insecure_skip_tls_verify = cfg.insecure_skip_tls_verify;
      cfg.exec = std::move(*x);
    }
  }
  if (auto ns = str(ctx.body, "namespace"); !ns.empty())
    cfg.namespace_ = ns;
  return cfg;
}

} // namespace

expected<cluster_config> parse_kubeconfig(const std::string& text, const std::string& path,
                                          const std::string& context) {
  merged_kubeconfig m;
  if (auto e = add_file(m, text, path))
    return *e;
  try {
    return resolve_context(m, context);
  } catch (const YAML::Exception& e) {
    return kubeconfig_error(path, "unexpected structure: " + e.msg);
  }
}

expected<cluster_config> load_kubeconfig_list(const std::vector<std::string>& paths,
                                              const std::string& context) {
  merged_kubeconfig m;
  std::vector<std::string> seen;
  for (const auto& path : paths) {
    // client-go deduplicates the list (NewDefaultClientConfigLoadingRules) and skips
    // missing files (Load: os.IsNotExist).
    if (path.empty() || std::find(seen.begin(), seen.end(), path) != seen.end())
      continue;
    seen.push_back(path);
    if (!file_exists(path))
      continue;
    auto text = read_file(path, "kubeconfig " + path);
    if (!text)
      return text.err();
    if (auto e = add_file(m, *text, path))
      return *e; // kubectl refuses a list with a broken file too
  }
  if (m.files.empty())
    return kubeconfig_error(joined(seen), seen.size() == 1 ? "file not found"
                                                           : "none of these files exists");
  try {
    return resolve_context(m, context);
  } catch (const YAML::Exception& e) {
    return kubeconfig_error(joined(m.files), "unexpected structure: " + e.msg);
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
    std::vector<std::string> list;
    std::string entries = env;
    for (std::size_t start = 0; start <= entries.size();) {
      auto colon = entries.find(':', start);
      auto end = colon == std::string::npos ? entries.size() : colon;
      if (end > start)
        list.push_back(entries.substr(start, end - start));
      start = end + 1;
    }
    if (!list.empty())
      return load_kubeconfig_list(list, context);
  }
  if (const char* host = std::getenv("KUBERNETES_SERVICE_HOST"); host && *host)
    return load_in_cluster();
  const char* home = std::getenv("HOME");
  return load_kubeconfig(std::string{home ? home : ""} + "/.kube/config", context);
}

} // namespace schedopt::k8s
