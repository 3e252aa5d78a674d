// Field validation errors and the 422 Invalid answer they make, as apimachinery shapes
// them: a cause per field and one message aggregating them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/error.hpp"

namespace schedopt::sim {

struct resource_type;

/// apimachinery pkg/util/validation/field/errors.go ErrorType.
enum class field_error_type {
  required,      // FieldValueRequired, "Required value"
  invalid,       // FieldValueInvalid, "Invalid value"
  type_invalid,  // FieldValueTypeInvalid, "Invalid value"
  not_supported, // FieldValueNotSupported, "Unsupported value"
  too_long,      // FieldValueTooLong, "Too long"
  too_many,      // FieldValueTooMany, "Too many"
  forbidden,     // FieldValueForbidden, "Forbidden"
  duplicate,     // FieldValueDuplicate, "Duplicate value"
};

struct field_error {
  field_error_type type = field_error_type::invalid;
  std::string field;  // "spec.vmHyperconvergence.maxParallelMigrations"
  std::string value;  // the bad value as Go prints it ("\"abc\"", "0"); empty for none
  std::string detail; // what is wrong with it; may be empty
};

/// The cause's `reason` ("FieldValueInvalid").
const char* cause_type(field_error_type type);
/// field.Error.ErrorBody: `Invalid value: "abc": field is immutable`.
std::string error_body(const field_error& err);
/// field.Error.Error: `metadata.uid: Invalid value: "abc": field is immutable`.
std::string to_string(const field_error& err);

/// errors.NewInvalid(GroupKind, name, errs) as an error: 422, reason Invalid, message
/// `<Kind>.<group> "<name>" is invalid: <aggregate>`, details with a cause per error.
error invalid_object_error(const resource_type& type, const std::string& name,
                           const std::vector<field_error>& errs);

/// The store's errors are plain schedopt::error values (code, message, HTTP status); an
/// answer whose Status needs its own `details` (causes) carries them after the message,
/// behind a separator no message contains. These two are the only readers and writers.
void attach_status_details(error& err, const nlohmann::json& details);
/// The message without the details, and the details (null when none were attached).
std::pair<std::string, nlohmann::json> split_status_details(const error& err);

} // namespace schedopt::sim
