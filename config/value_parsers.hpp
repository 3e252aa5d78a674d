// Text -> typed setting values, shared by flags, environment and config file. Each
// returns an empty string on success or a short detail ("not an integer") that the
// caller prefixes with where the value came from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/duration.hpp"

namespace schedopt::config_detail {

std::string parse_bool(const std::string& text, bool& out);
std::string parse_int(const std::string& text, int64_t& out);
std::string parse_number(const std::string& text, double& out);
std::string parse_duration(const std::string& text, duration& out);
/// Comma-separated, entries trimmed, empty entries dropped.
std::vector<std::string> parse_list(const std::string& text);
std::string trim(const std::string& text);

} // namespace schedopt::config_detail
