// Helpers of the deploy suite: shell commands, temp dirs, and the manifests of deploy/
// (YAML) turned into API objects the simulator's admin can post or patch.
#pragma once

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace schedopt::deploy_test {

namespace fs = std::filesystem;
using json = nlohmann::json;

inline const std::string source_dir = SCHEDOPT_SOURCE_DIR;

/// The executable `tool` on $PATH, "" if none.
inline std::string on_path(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && access((dir + "/" + tool).c_str(), X_OK) == 0)
      return dir + "/" + tool;
  return {};
}

/// Exit code and output of a shell command (stderr merged).
inline std::pair<int, std::string> run_shell(const std::string& cmd) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p)
    return {-1, "popen failed"};
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0)
    out.append(buf, n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A fresh directory under /tmp, removed with everything in it.
struct scratch_dir {
  fs::path path;
  scratch_dir() {
    char tmpl[] = "/tmp/schedopt-deploy-test-XXXXXX";
    path = mkdtemp(tmpl) ? tmpl : "/tmp/schedopt-deploy-test";
  }
  ~scratch_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
};

/// A YAML node as JSON: quoted scalars stay strings, plain ones become bools and integers
/// where they parse as such.
inline json yaml_to_json(const YAML::Node& n) {
  switch (n.Type()) {
  case YAML::NodeType::Map: {
    json o = json::object();
    for (const auto& kv : n)
      o[kv.first.as<std::string>()] = yaml_to_json(kv.second);
    return o;
  }
  case YAML::NodeType::Sequence: {
    json a = json::array();
    for (const auto& v : n)
      a.push_back(yaml_to_json(v));
    return a;
  }
  case YAML::NodeType::Scalar: {
    if (n.Tag() == "!") // quoted
      return n.as<std::string>();
    bool b;
    long long i;
    if (YAML::convert<bool>::decode(n, b))
      return b;
    if (YAML::convert<long long>::decode(n, i))
      return i;
    return n.as<std::string>();
  }
  default:
    return nullptr;
  }
}

/// Every object of a manifest file (relative to the source tree), in file order.
inline std::vector<json> manifest_objects(const std::string& file) {
  std::vector<json> out;
  for (const auto& doc : YAML::LoadAll(slurp(source_dir + "/" + file))) {
    json obj = yaml_to_json(doc);
    if (obj.is_object())
      out.push_back(std::move(obj));
  }
  return out;
}

/// The collection path an object is created at: /api/v1[/namespaces/ns]/<kind>s or
/// /apis/<apiVersion>[/namespaces/ns]/<kind>s (every kind in deploy/rbac pluralises so).
inline std::string collection_path(const json& obj) {
  std::string api = obj.value("apiVersion", "");
  std::string plural;
  for (char c : obj.value("kind", std::string()))
    plural += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  plural += "s";
  std::string path = api == "v1" ? "/api/v1" : "/apis/" + api;
  std::string ns = obj.value("/metadata/namespace"_json_pointer, std::string());
  if (!ns.empty())
    path += "/namespaces/" + ns;
  return path + "/" + plural;
}

/// The path of the object itself.
inline std::string object_path(const json& obj) {
  return collection_path(obj) + "/" + obj.value("/metadata/name"_json_pointer, std::string());
}

} // namespace schedopt::deploy_test
