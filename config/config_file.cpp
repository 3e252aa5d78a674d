// yaml-cpp parses both YAML and JSON, so one reader serves either ConfigMap style.
#include "config/config_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace schedopt::config_detail {

expected<std::string> read_config_text(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return make_error(ec::config_error, path + ": cannot read: " + std::strerror(errno));
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

expected<std::vector<file_entry>> parse_config_file(const std::string& text,
                                                    const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return make_error(ec::config_error,
                      path + ": invalid YAML: " + e.msg + " at line "
                        + std::to_string(e.mark.line + 1) + ", column "
                        + std::to_string(e.mark.column + 1));
  }
  std::vector<file_entry> out;
  if (!root || root.IsNull())
    return out; // an empty ConfigMap key means "all defaults"
  if (!root.IsMap())
    return make_error(ec::config_error, path + ": expected a mapping of settings");
  for (const auto& kv : root) {
    if (!kv.first.IsScalar())
      return make_error(ec::config_error, path + ": keys must be strings");
    auto key = kv.first.Scalar();
    const auto& v = kv.second;
    file_entry e{key, {}};
    if (v.IsScalar()) {
      e.value = v.Scalar();
    } else if (v.IsSequence()) {
      e.sequence = true;
      for (const auto& item : v) {
        if (!item.IsScalar())
          return make_error(ec::config_error, path + ": " + key + ": expected a list of strings");
        e.value += (e.value.empty() ? "" : ",") + item.Scalar();
      }
    } else if (!v.IsNull()) {
      return make_error(ec::config_error, path + ": " + key + ": expected a scalar");
    }
    out.push_back(std::move(e));
  }
  return out;
}

} // namespace schedopt::config_detail
