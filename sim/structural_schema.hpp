// A CRD version's structural schema and what apiextensions-apiserver does with it on a
// write: prune unknown fields, drop non-nullable nulls and validate, with kube-apiserver's
// own field paths and message texts (a client matching on them sees what a cluster says).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/error.hpp"
#include "sim/field_errors.hpp"

namespace schedopt::sim {

/// A `pattern` compiled for matching (a POSIX ERE: glibc's matcher is not recursive, so a
/// megabyte-long value cannot exhaust the stack as std::regex would).
struct compiled_pattern;

/// One node of an openAPIV3Schema, the subset a structural schema may use.
struct structural_schema {
  std::vector<std::string> types; // "object", ...; ["integer","string"] for int-or-string
  std::string format;             // kept only when kube-openapi validates it
  bool nullable = false;
  bool preserve_unknown_fields = false;
  bool embedded_resource = false;
  std::map<std::string, structural_schema> properties;
  std::shared_ptr<structural_schema> items;
  bool has_additional_properties = false;                   // additionalProperties given
  std::shared_ptr<structural_schema> additional_properties; // null for `true`
  std::vector<std::string> required;
  std::optional<double> minimum, maximum, multiple_of;
  bool exclusive_minimum = false, exclusive_maximum = false;
  std::optional<int64_t> max_length, min_length, max_items, min_items, max_properties,
    min_properties;
  bool unique_items = false;
  std::string pattern;
  std::shared_ptr<const struct compiled_pattern> pattern_regex; // null when it does not compile
  nlohmann::json enum_values;                      // null, or the array of allowed values
  std::string list_type;                           // x-kubernetes-list-type
};

/// A CRD version's schema as the simulator enforces it.
struct crd_schema {
  std::string group, version, kind;
  structural_schema root;
};

/// openAPIV3Schema (JSON) to the structural form; an error for a node that is not an object.
expected<structural_schema> structural_from_json(const nlohmann::json& schema);

/// Drops fields the schema does not know (apiVersion, kind and metadata at the root are
/// kept; unknown metadata fields are dropped) and returns their paths, sorted, as the
/// strict decoder names them ("spec.foo", "spec.list[0].bar", "metadata.foo").
std::vector<std::string> prune_unknown_fields(nlohmann::json& object, const structural_schema& root);

/// Removes `null` values of fields whose schema is not nullable.
void prune_non_nullable_nulls(nlohmann::json& value, const structural_schema* schema);

/// Schema errors of `object` (or, with `status_only`, of its status, under field path
/// "status"). `old` (null on create) ratchets: a value equal to its counterpart in the
/// stored object is not re-judged.
std::vector<field_error> validate_custom_resource(const crd_schema& schema, const nlohmann::json& object,
                                                  const nlohmann::json* old, bool status_only);

/// "strict decoding error: unknown field \"a\", unknown field \"b\"".
std::string strict_decoding_message(const std::vector<std::string>& unknown_fields);

/// A Warning header value for `text`: 299 - "<text with \ and \" escaped>".
std::string warning_header(const std::string& text);

/// Go's %q of a string, as field errors print bad values.
std::string go_quote(const std::string& s);

/// The object_store write hook for `schema`: prunes, then validates the object as it will
/// be stored; a 422 error with its causes attached (sim/field_errors.hpp) on failure.
std::optional<error> enforce_schema(const crd_schema& schema, nlohmann::json& object,
                                    const nlohmann::json* old, bool status_only);

} // namespace schedopt::sim
