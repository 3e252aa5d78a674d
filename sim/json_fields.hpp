// Reading one field of a stored object, as every simulated component does: a missing
// field or one of another type reads as empty, as a Go struct's zero value would.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace schedopt::sim {

/// The string at `pointer`, "" when absent or not a string.
std::string text_at(const nlohmann::json& object, const nlohmann::json::json_pointer& pointer);

/// The string member `key`, "" when absent or not a string.
std::string text_of(const nlohmann::json& object, const char* key);

/// metadata.<field> as a string, "" when absent or not a string.
std::string metadata_text(const nlohmann::json& object, const char* field);

std::string name_of(const nlohmann::json& object);
std::string namespace_of(const nlohmann::json& object);
std::string uid_of(const nlohmann::json& object);

/// metadata.deletionTimestamp is set (apimachinery ObjectMeta.GetDeletionTimestamp != nil).
bool is_terminating(const nlohmann::json& object);

} // namespace schedopt::sim
