// Reads the settings file (YAML or JSON, camelCase keys, usually a mounted ConfigMap)
// into raw key/value text; config/command_line.cpp validates the values.
#pragma once

#include <string>
#include <vector>

#include "model/error.hpp"

namespace schedopt::config_detail {

struct file_entry {
  std::string key;
  std::string value; // scalars as written; sequences joined with ","
  bool sequence = false; // written as a YAML/JSON list
};

/// The file's bytes, or `<path>: cannot read: <strerror>`.
expected<std::string> read_config_text(const std::string& path);

/// The settings in `text`, the content of the file `path` (only named in errors):
/// `<path>: invalid YAML: ...`, `<path>: expected a mapping of settings`,
/// `<path>: <key>: expected a scalar`.
expected<std::vector<file_entry>> parse_config_file(const std::string& text,
                                                    const std::string& path);

} // namespace schedopt::config_detail
