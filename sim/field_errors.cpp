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

std::string error_body(const field_error& err) {
  std::string body = type_text(err.type);
  if (!omits_value(err.type) && !err.value.empty())
    body += ": " + err.value;
  if (!err.detail.empty())
    body += ": " + err.detail;
  return body;
}

std::string to_string(const field_error& err) {
  return err.field + ": " + error_body(err);
}

error invalid_object_error(const resource_type& type, const std::string& name,
                           const std::vector<field_error>& errs) {
  nlohmann::json causes = nlohmann::json::array();
  std::vector<std::string> messages;
  std::set<std::string> seen;
  for (const auto& e : errs) {
    causes.push_back({{"reason", cause_type(e.type)}, {"message", error_body(e)}, {"field", e.field}});
    auto text = to_string(e);
    if (seen.insert(text).second)
      messages.push_back(std::move(text));
  }
  std::string aggregate;
  if (messages.size() == 1) {
    aggregate = messages.front();
  } else {
    for (std::size_t i = 0; i < messages.size(); ++i)
      aggregate += (i == 0 ? "[" : ", ") + messages[i];
    if (!messages.empty())
      aggregate += "]";
  }
  // GroupKind.String(): "Kind.group", or "Kind" for the core group.
  auto qualified = type.group.empty() ? type.kind : type.kind + "." + type.group;
  auto message = qualified + " " + nlohmann::json(name).dump() + " is invalid";
  if (!aggregate.empty())
    message += ": " + aggregate;
  nlohmann::json details = {{"name", name}, {"kind", type.kind}, {"causes", causes}};
  if (!type.group.empty())
    details["group"] = type.group;
  auto err = make_error(ec::invalid_value, std::move(message), 422);
  attach_status_details(err, details);
  return err;
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
