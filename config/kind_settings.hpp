// An optimization kind's own cluster settings: rows the kind defines in its folder and
// hands over through its registry entry (docs/design.md "How to add a kind"). Config
// reads them from flags, environment and the config file, lists them in --help and
// docs/configuration.md exactly as its own rows, and keeps each value as validated text
// in settings::kind_values for the kind's typed reader. Config itself names no kind's
// setting.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace schedopt {

/// Every kind's setting values as text, keyed by config-file key. Filled by
/// parse_command_line: every kind row it was given, defaults included.
using kind_setting_values = std::map<std::string, std::string>;

/// `text` checked as a value: "" when valid, else a short detail ("must be >= 1") that
/// the caller prefixes with where the value came from.
using kind_value_check = std::function<std::string(const std::string& text)>;

/// One row. The kind names only the config-file key: the flag and the environment variable
/// follow from it by the rule every core setting follows (--pod-ready-timeout,
/// SCHEDOPT_POD_READY_TIMEOUT), so no kind can spell one differently.
struct kind_setting {
  std::string key;          // camelCase config-file key: "podReadyTimeout"
  std::string value_name;   // "DURATION", "INT", "LIST", ...; empty for a boolean flag
  std::string default_text; // the value when no source gives one; `validate` accepts it
  std::string description;  // one line, for --help and docs/configuration.md
  kind_value_check validate;
};

/// A kind's rows, in documentation order, and its checks across them.
struct kind_settings_table {
  std::string kind; // the registry name, heading the kind's section of the docs
  std::vector<kind_setting> rows;
  /// Checks across rows after every source merged; `values` holds every row. "" or the
  /// error, naming each value `key (source_of(key))` as the core checks do. May be empty.
  std::function<std::string(const kind_setting_values& values,
                            const std::function<std::string(const std::string&)>& source_of)>
    validate_combination;
};

/// `key`'s text in `values`, else its row's default: a settings value that
/// parse_command_line did not fill (as tests build) holds no kind values. Empty for a key
/// the table has no row for.
std::string kind_value_text(const kind_setting_values& values, const kind_settings_table& table,
                            const std::string& key);

/// Checks a kind's rows can share with the core rows, with the same details.
kind_value_check int_at_least(int64_t min); // "not an integer", "must be >= 1"
kind_value_check any_duration();            // a Go duration: "invalid duration ..."
kind_value_check positive_duration();       // and "must be > 0"

} // namespace schedopt
