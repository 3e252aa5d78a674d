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

/// One field.Error as kube-apiserver reports it (a metav1.StatusCause).
struct field_error {
  std::string reason;  // FieldValueInvalid, FieldValueRequired, ...
  std::string field;   // spec.vmHyperconvergence.maxParallelMigrations
  std::string message; // ErrorBody: "Invalid value: 0: spec... should be greater than ..."
  /// field.Error.Error: `metadata.uid: Invalid value: "abc": field is immutable`.
  std::string text() const { return field + ": " + message; }
};

/// The cause's `reason` ("FieldValueInvalid").
const char* cause_type(field_error_type type);
/// A field error as field.Invalid, field.Required, ... make it: `value` is the bad value
/// as Go prints it ("\"abc\"", "0", "null"; empty for none), `detail` what is wrong.
field_error make_field_error(field_error_type type, std::string field, const std::string& value,
                             const std::string& detail);

/// The message of errors.NewInvalid: `<kind> "<name>" is invalid: <aggregate>`.
std::string invalid_message(const std::string& qualified_kind, const std::string& name,
                            const std::vector<field_error>& errors);
/// The 422 Status body of errors.NewInvalid for `errors` of object `name`.
nlohmann::json invalid_status(const std::string& qualified_kind, const std::string& group,
                              const std::string& kind, const std::string& name,
                              const std::vector<field_error>& errors);
/// The same as an error value (details attached, see below).
error invalid_error(const std::string& qualified_kind, const std::string& group, const std::string& kind,
                    const std::string& name, const std::vector<field_error>& errors);
/// invalid_error for an object of a served type.
error invalid_object_error(const resource_type& type, const std::string& name,
                           const std::vector<field_error>& errs);

/// The store's errors are plain schedopt::error values (code, message, HTTP status); an
/// answer whose Status needs its own `details` (causes) carries them after the message,
/// behind a separator no message contains. These two are the only readers and writers.
void attach_status_details(error& err, const nlohmann::json& details);
/// The message without the details, and the details (null when none were attached).
std::pair<std::string, nlohmann::json> split_status_details(const error& err);

} // namespace schedopt::sim
