// The single table behind flags, environment, config file, --help and docs/configuration.md:
// one row per setting with its spellings and how to apply a text value.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "config/settings.hpp"

namespace schedopt::config_detail {

struct setting_def {
  setting_info info;
  std::string value_name; // "DURATION", "INT", ...; empty for a boolean flag
  /// Parses and validates `text` into `s`; returns "" or an error detail.
  std::function<std::string(settings& s, const std::string& text)> apply;
  /// The current value as text that `apply` accepts back.
  std::function<std::string(const settings& s)> show;
};

/// Every core setting, including `config` (flag/env only: a file cannot name another file).
const std::vector<setting_def>& setting_defs();

/// The core settings, then each kind's rows as settings like them: spelled from the key by
/// the same rule, applied by storing the validated text in settings::kind_values, shown
/// as that text (the row's default when absent).
std::vector<setting_def> setting_defs(const std::vector<kind_settings_table>& kinds);

/// A row's flag and environment variable, from its camelCase key.
std::string flag_of(const std::string& key); // "--cool-off-period"
std::string env_of(const std::string& key);  // "SCHEDOPT_COOL_OFF_PERIOD"
/// A kind's row spelled as every row is.
setting_info info_of(const kind_setting& row);

/// A setting that no longer exists, spelled as each source spelled it. Naming one
/// anywhere is refused with `instead`, never ignored: a user who still sets it believes it
/// takes effect.
struct removed_setting {
  std::string key;     // config file key
  std::string flag;    // "--portworx-token"
  std::string env;     // "SCHEDOPT_PORTWORX_TOKEN"
  std::string instead; // why it went and what to use, appended to the spelling
};

const std::vector<removed_setting>& removed_settings();

/// Cross-setting checks after all sources merged, the core ones then each kind's;
/// `source_of(key)` names where a value came from ("--renew-deadline",
/// "SCHEDOPT_RENEW_DEADLINE", "<file>", "default").
std::string validate_combination(const settings& s,
                                 const std::function<std::string(const std::string&)>& source_of,
                                 const std::vector<kind_settings_table>& kinds = {});

} // namespace schedopt::config_detail
