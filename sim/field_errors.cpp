// Follows apimachinery (kubernetes v1.36.3 staging/src/k8s.io/apimachinery):
// pkg/util/validation/field/errors.go (Error.Error, Error.ErrorBody, ErrorType.String),
// pkg/util/errors/errors.go (aggregate's Error: one message alone, several in brackets,
// duplicates once) and pkg/api/errors/errors.go NewInvalid.
#include "sim/field_errors.hpp"

#include <set>

#include "sim/object_store.hpp"

namespace schedopt::sim {

namespace {

const char* type_text(field_error_type type) {
  switch (type) {
    case field_error_type::required: return "Required value";
    case field_error_type::invalid:
    case field_error_type::type_invalid: return "Invalid value";
    case field_error_type::not_supported: return "Unsupported value";
    case field_error_type::too_long: return "Too long";
    case field_error_type::too_many: return "Too many";
    case field_error_type::forbidden: return "Forbidden";
    case field_error_type::duplicate: return "Duplicate value";
  }
  return "Invalid value";
}

/// ErrorBody leaves the value out for these types.
bool omits_value(field_error_type type) {
  return type == field_error_type::required || type == field_error_type::forbidden
         || type == field_error_type::too_long;
}

} // namespace

const char* cause_type(field_error_type type) {
  switch (type) {
    case field_error_type::required: return "FieldValueRequired";
    case field_error_type::invalid: return "FieldValueInvalid";
    case field_error_type::type_invalid: return "FieldValueTypeInvalid";
    case field_error_type::not_supported: return "FieldValueNotSupported";
    case field_error_type::too_long: return "FieldValueTooLong";
    case field_error_type::too_many: return "FieldValueTooMany";
    case field_error_type::forbidden: return "FieldValueForbidden";
    case field_error_type::duplicate: return "FieldValueDuplicate";
  }
  return "FieldValueInvalid";
}

field_error make_field_error(field_error_type type, std::string field, const std::string& value,
                             const std::string& detail) {
  std::string body = type_text(type);
  if (!omits_value(type) && !value.empty())
    body += ": " + value;
  if (!detail.empty())
    body += ": " + detail;
  return field_error{cause_type(type), std::move(field), std::move(body)};
}

std::string invalid_message(const std::string& qualified_kind, const std::string& name,
                            const std::vector<field_error>& errors) {
  std::string message = qualified_kind + " " + nlohmann::json(name).dump() + " is invalid";
  std::vector<std::string> seen;
  std::set<std::string> known;
  for (const auto& e : errors)
    if (known.insert(e.text()).second)
      seen.push_back(e.text());
  if (seen.empty())
    return message;
  if (seen.size() == 1)
    return message + ": " + seen[0];
  std::string joined;
  for (std::size_t i = 0; i < seen.size(); ++i)
    joined += (i == 0 ? "" : ", ") + seen[i];
  return message + ": [" + joined + "]";
}

nlohmann::json invalid_status(const std::string& qualified_kind, const std::string& group,
                              const std::string& kind, const std::string& name,
                              const std::vector<field_error>& errors) {
  auto err = invalid_error(qualified_kind, group, kind, name, errors);
  auto [message, details] = split_status_details(err);
  return {{"kind", "Status"},   {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
          {"status", "Failure"}, {"message", message}, {"reason", "Invalid"},
          {"details", details},  {"code", 422}};
}

error invalid_error(const std::string& qualified_kind, const std::string& group, const std::string& kind,
                    const std::string& name, const std::vector<field_error>& errors) {
  nlohmann::json causes = nlohmann::json::array();
  for (const auto& e : errors)
    causes.push_back({{"reason", e.reason}, {"message", e.message}, {"field", e.field}});
  nlohmann::json details = nlohmann::json::object();
  if (!name.empty())
    details["name"] = name;
  if (!group.empty())
    details["group"] = group;
  if (!kind.empty())
    details["kind"] = kind;
  details["causes"] = causes;
  auto err = make_error(ec::invalid_value, invalid_message(qualified_kind, name, errors), 422);
  attach_status_details(err, details);
  return err;
}

error invalid_object_error(const resource_type& type, const std::string& name,
                           const std::vector<field_error>& errs) {
  // GroupKind.String(): "Kind.group", or "Kind" for the core group.
  auto qualified = type.group.empty() ? type.kind : type.kind + "." + type.group;
  return invalid_error(qualified, type.group, type.kind, name, errs);
}

namespace {
constexpr char details_separator = '\x1e'; // ASCII record separator
} // namespace

void attach_status_details(error& err, const nlohmann::json& details) {
  err.message += details_separator;
  err.message += details.dump();
}

std::pair<std::string, nlohmann::json> split_status_details(const error& err) {
  auto at = err.message.find(details_separator);
  if (at == std::string::npos)
    return {err.message, nullptr};
  return {err.message.substr(0, at),
          nlohmann::json::parse(err.message.substr(at + 1), nullptr, false)};
}

} // namespace schedopt::sim
