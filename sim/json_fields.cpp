// See json_fields.hpp.
#include "sim/json_fields.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

std::string text_at(const json& object, const json::json_pointer& pointer) {
  if (!object.contains(pointer))
    return {};
  const auto& v = object.at(pointer);
  return v.is_string() ? v.get<std::string>() : std::string{};
}

std::string text_of(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

std::string metadata_text(const json& object, const char* field) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object())
    return {};
  return text_of(*meta, field);
}

std::string name_of(const json& object) {
  return text_at(object, "/metadata/name"_json_pointer);
}

std::string namespace_of(const json& object) {
  return text_at(object, "/metadata/namespace"_json_pointer);
}

std::string uid_of(const json& object) {
  return text_at(object, "/metadata/uid"_json_pointer);
}

bool is_terminating(const json& object) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object())
    return false;
  auto ts = meta->find("deletionTimestamp");
  return ts != meta->end() && !ts->is_null();
}

} // namespace schedopt::sim
