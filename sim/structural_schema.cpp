// Structural-schema pruning and validation, modelled on apiextensions-apiserver and the
// kube-openapi validators it runs (hand-written so paths and texts match kube-apiserver).
#include "sim/structural_schema.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>

#include <regex.h>
#include <set>

namespace schedopt::sim {

struct compiled_pattern {
  regex_t re{};
  ~compiled_pattern() { regfree(&re); }
  /// Go's regexp.MatchString: unanchored search.
  bool search(const std::string& s) const { return regexec(&re, s.c_str(), 0, nullptr, 0) == 0; }
};

namespace {

using json = nlohmann::json;

/// The RE2 spellings CRD patterns commonly use that an ERE lacks: \d, \D, \s, \w
/// classes and (?: groups. Nullopt for an escape this cannot translate.
std::optional<std::string> ere_of(const std::string& pattern) {
  std::string out;
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      char n = pattern[++i];
      const char* inside = nullptr;
      const char* outside = nullptr;
      switch (n) {
        case 'd': inside = "0-9"; outside = "[0-9]"; break;
        case 'D': outside = "[^0-9]"; break;
        case 's': inside = "[:space:]"; outside = "[[:space:]]"; break;
        case 'w': inside = "[:alnum:]_"; outside = "[[:alnum:]_]"; break;
        default: break;
      }
      if (inside != nullptr || outside != nullptr) {
        if (in_class && inside == nullptr)
          return std::nullopt;
        out += in_class ? inside : outside;
      } else if (in_class) {
        // Inside a bracket expression a backslash is literal in an ERE.
        if (n == ']' || n == '\\' || n == '-' || n == '^')
          out += n == '-' ? std::string("-") : std::string(1, n);
        else
          out += n;
      } else {
        out += '\\';
        out += n;
      }
      continue;
    }
    if (!in_class && c == '[') {
      in_class = true;
      out += c;
      if (i + 1 < pattern.size() && pattern[i + 1] == '^')
        out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']')
        out += pattern[++i];
      continue;
    }
    if (in_class && c == ']')
      in_class = false;
    if (!in_class && c == '(' && pattern.compare(i, 3, "(?:") == 0) {
      out += '(';
      i += 2;
      continue;
    }
    out += c;
  }
  return out;
}

// ---- Go formatting of values, as fmt prints them in kube-openapi and field errors ----

/// strconv.FormatFloat(f, 'g', -1, 64), which fmt's %v uses for a float64.
std::string go_float(double f) {
  if (std::isnan(f))
    return "NaN";
  if (std::isinf(f))
    return f > 0 ? "+Inf" : "-Inf";
  if (f == 0)
    return std::signbit(f) ? "-0" : "0";
  // The shortest %e form that reads back as f gives the digits and the exponent.
  char buf[64];
  int precision = 0;
  for (; precision < 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision, f);
    if (std::strtod(buf, nullptr) == f)
      break;
  }
  std::snprintf(buf, sizeof buf, "%.*e", precision, f);
  std::string e = buf;
  auto epos = e.find('e');
  std::string mantissa = e.substr(0, epos);
  int exponent = std::stoi(e.substr(epos + 1));
  bool negative = mantissa[0] == '-';
  if (negative)
    mantissa.erase(0, 1);
  std::string digits;
  for (char c : mantissa)
    if (c != '.')
      digits += c;
  // Shortest 'g' switches to exponent form below 1e-4 and from 1e21 on ('g' with
  // precision -1 uses an exponent threshold of 21).
  std::string out;
  if (exponent < -4 || exponent >= 21) {
    out = digits.substr(0, 1);
    if (digits.size() > 1)
      out += "." + digits.substr(1);
    char ex[16];
    std::snprintf(ex, sizeof ex, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    out += ex;
  } else if (exponent < 0) {
    out = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  } else if (static_cast<std::size_t>(exponent + 1) >= digits.size()) {
    out = digits + std::string(static_cast<std::size_t>(exponent + 1) - digits.size(), '0');
  } else {
    out = digits.substr(0, static_cast<std::size_t>(exponent + 1)) + "."
          + digits.substr(static_cast<std::size_t>(exponent + 1));
  }
  return negative ? "-" + out : out;
}

/// A number as %v prints it: integers as integers, floats as Go's shortest form.
std::string go_number(const json& v) {
  if (v.is_number_integer())
    return v.is_number_unsigned() ? std::to_string(v.get<uint64_t>()) : std::to_string(v.get<int64_t>());
  return go_float(v.get<double>());
}

/// %v of a value kube-openapi holds: its Go rendering of maps ("map[a:1]") differs from
/// JSON, but bad values and enum lists in the texts here are scalars.
std::string go_value(const json& v) {
  if (v.is_string())
    return v.get<std::string>();
  if (v.is_number())
    return go_number(v);
  if (v.is_boolean())
    return v.get<bool>() ? "true" : "false";
  if (v.is_null())
    return "<nil>";
  return v.dump();
}

// ---- kube-openapi validation errors (pkg/validation/errors) ----

enum class code { invalid_type, required, too_long, enum_fail, max_items, too_many_properties, other };

struct openapi_error {
  code kind = code::other;
  std::string name;         // the kube-openapi path: "spec.x", "" for the root
  std::optional<json> value; // Go's err.Value; nullopt for nil
  int64_t valid = -1;        // err.Valid (maxLength, maxItems, maxProperties)
  json values;               // enum values
  std::string message;
};

const std::string in_body = "body";

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i)
    out += (i ? sep : "") + parts[i];
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

/// errors.InvalidType: a string value is quoted into the message, anything else is not.
openapi_error invalid_type(const std::string& path, const std::string& type_name, const json& value) {
  openapi_error e;
  e.kind = code::invalid_type;
  e.name = path;
  e.value = value;
  e.message = path + " in " + in_body + " must be of type " + type_name;
  if (value.is_string())
    e.message += ": " + go_quote(value.get<std::string>());
  return e;
}

openapi_error other(const std::string& path, json value, std::string message) {
  openapi_error e;
  e.name = path;
  e.value = std::move(value);
  e.message = std::move(message);
  return e;
}

/// The JSON type and swagger format kube-openapi infers from a decoded value
/// (typeValidator.schemaInfoForType: int64 for integers, float64 for other numbers).
std::pair<std::string, std::string> type_of(const json& v) {
  switch (v.type()) {
    case json::value_t::boolean: return {"boolean", ""};
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return {"integer", "int64"};
    case json::value_t::number_float: return {"number", "float64"};
    case json::value_t::string: return {"string", ""};
    case json::value_t::array: return {"array", ""};
    case json::value_t::object: return {"object", ""};
    default: return {"null", ""};
  }
}

bool is_json_integer(double f) {
  return std::isfinite(f) && std::floor(f) == f && std::fabs(f) < 9007199254740992.0;
}

bool enum_equal(const json& a, const json& b) {
  if (a.is_number() && b.is_number())
    return a.get<double>() == b.get<double>();
  return a == b;
}

/// RFC 3339 date-time as strfmt.ParseDateTime accepts it.
bool is_date_time(const std::string& s) {
  if (s.size() > 64) // far longer than any RFC 3339 time; keeps std::regex off huge input
    return false;
  static const std::regex rx(
    R"(^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$)");
  return std::regex_match(s, rx);
}

std::size_t rune_count(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80)
      ++n;
  return n;
}

// Follows kube-openapi pkg/validation/validate/schema.go, SchemaValidator.Validate: the
// type, string, format, number, slice, common (enum) and object validators in that order,
// each where it applies to the value's kind; with the ratcheting of apiextensions-apiserver
// pkg/apiserver/validation/ratcheting.go (a value equal to its correlated old value has its
// errors discarded).
class node_validator {
public:
  std::vector<openapi_error> errors;

  void validate(const json& v, const structural_schema& s, const std::string& path, const json* old) {
    if (old != nullptr && *old == v)
      return;
    if (v.is_null()) {
      // typeValidator with nil data: only a schema that allows null passes.
      if (!s.types.empty() && !contains(s.types, "null") && !s.nullable)
        errors.push_back(invalid_type(path, join(s.types, ","), "null"));
      check_enum(v, s, path);
      return;
    }
    check_type(v, s, path);
    if (v.is_string())
      check_string(v.get<std::string>(), s, path);
    if (v.is_number())
      check_number(v, s, path);
    if (v.is_array())
      check_array(v, s, path, old);
    check_enum(v, s, path);
    if (v.is_object())
      check_object(v, s, path, old);
  }

private:
  // typeValidator.Validate.
  void check_type(const json& v, const structural_schema& s, const std::string& path) {
    if (s.types.empty() && s.format.empty())
      return;
    auto [sch_type, format] = type_of(v);
    bool is_float_int = sch_type == "number" && is_json_integer(v.get<double>())
                        && contains(s.types, "integer");
    bool is_int_float = sch_type == "integer" && contains(s.types, "number");
    bool string_or_slice = v.is_string() || v.is_array();
    if (!string_or_slice && !s.format.empty()
        && !(contains(s.types, sch_type) || format == s.format || is_float_int || is_int_float)) {
      errors.push_back(invalid_type(path, s.format, format));
      return;
    }
    if (!(contains(s.types, "number") || contains(s.types, "integer")) && !s.format.empty()
        && string_or_slice)
      return;
    if (!(contains(s.types, sch_type) || is_float_int || is_int_float))
      errors.push_back(invalid_type(path, join(s.types, ","), sch_type));
  }

  // stringValidator.Validate (first failure only), then formatValidator.
  void check_string(const std::string& data, const structural_schema& s, const std::string& path) {
    auto failed = [&]() {
      if (s.max_length && static_cast<int64_t>(rune_count(data)) > *s.max_length) {
        openapi_error e = other(path, data,
                                path + " in " + in_body + " should be at most "
                                  + std::to_string(*s.max_length) + " chars long");
        e.kind = code::too_long;
        e.valid = *s.max_length;
        errors.push_back(std::move(e));
        return true;
      }
      if (s.min_length && static_cast<int64_t>(rune_count(data)) < *s.min_length) {
        errors.push_back(other(path, data,
                               path + " in " + in_body + " should be at least "
                                 + std::to_string(*s.min_length) + " chars long"));
        return true;
      }
      if (!s.pattern.empty() && s.pattern_regex && !s.pattern_regex->search(data)) {
        errors.push_back(other(path, data, path + " in " + in_body + " should match '" + s.pattern + "'"));
        return true;
      }
      return false;
    };
    failed();
    // formatValidator: the formats this simulator checks (others pass).
    if ((s.format == "date-time" || s.format == "datetime") && !is_date_time(data))
      errors.push_back(invalid_type(path, s.format, data));
  }

  // numberValidator.Validate: multipleOf, minimum, maximum (values.go *NativeType: an
  // integer compares with the bound truncated to an integer).
  void check_number(const json& v, const structural_schema& s, const std::string& path) {
    bool integer = v.is_number_integer();
    auto bound = [&](double b) {
      return integer ? std::to_string(static_cast<int64_t>(b)) : go_float(b);
    };
    auto value = v.get<double>();
    if (s.multiple_of && *s.multiple_of > 0) {
      double q = value / *s.multiple_of;
      if (!is_json_integer(q))
        errors.push_back(other(path, v,
                               path + " in " + in_body + " should be a multiple of " + go_float(*s.multiple_of)));
    }
    if (s.minimum) {
      double min = integer ? static_cast<double>(static_cast<int64_t>(*s.minimum)) : *s.minimum;
      if ((!s.exclusive_minimum && value < min) || (s.exclusive_minimum && value <= min))
        errors.push_back(other(path, v,
                               path + " in " + in_body + " should be greater than "
                                 + (s.exclusive_minimum ? "" : "or equal to ") + bound(*s.minimum)));
    }
    if (s.maximum) {
      double max = integer ? static_cast<double>(static_cast<int64_t>(*s.maximum)) : *s.maximum;
      if ((!s.exclusive_maximum && value > max) || (s.exclusive_maximum && value >= max))
        errors.push_back(other(path, v,
                               path + " in " + in_body + " should be less than "
                                 + (s.exclusive_maximum ? "" : "or equal to ") + bound(*s.maximum)));
    }
  }

  // schemaSliceValidator.Validate. Items correlate with old items only for
  // x-kubernetes-list-type=set (by value), as CorrelatedObject.Index does; map lists are
  // not correlated here, atomic lists are not correlated upstream either.
  void check_array(const json& v, const structural_schema& s, const std::string& path, const json* old) {
    if (s.items) {
      for (std::size_t i = 0; i < v.size(); ++i) {
        const json* old_item = nullptr;
        if (old != nullptr && old->is_array() && s.list_type == "set")
          for (auto& o : *old)
            if (o == v[i])
              old_item = &o;
        validate(v[i], *s.items, path + "[" + std::to_string(i) + "]", old_item);
      }
    }
    auto size = static_cast<int64_t>(v.size());
    if (s.min_items && size < *s.min_items)
      errors.push_back(other(path, size,
                             path + " in " + in_body + " should have at least "
                               + std::to_string(*s.min_items) + " items"));
    if (s.max_items && size > *s.max_items) {
      openapi_error e = other(path, size,
                              path + " in " + in_body + " should have at most "
                                + std::to_string(*s.max_items) + " items");
      e.kind = code::max_items;
      e.valid = *s.max_items;
      errors.push_back(std::move(e));
    }
    if (s.unique_items) {
      for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = i + 1; j < v.size(); ++j)
          if (v[i] == v[j]) {
            openapi_error e;
            e.name = path;
            e.message = path + " in " + in_body + " shouldn't contain duplicates";
            errors.push_back(std::move(e));
            return;
          }
    }
  }

  // basicCommonValidator.Validate.
  void check_enum(const json& v, const structural_schema& s, const std::string& path) {
    if (!s.enum_values.is_array() || s.enum_values.empty())
      return;
    for (auto& allowed : s.enum_values)
      if (enum_equal(v, allowed))
        return;
    openapi_error e;
    e.kind = code::enum_fail;
    e.name = path;
    e.value = v;
    e.values = s.enum_values;
    std::vector<std::string> shown;
    for (auto& allowed : s.enum_values)
      shown.push_back(go_value(allowed));
    e.message = path + " in " + in_body + " should be one of [" + join(shown, " ") + "]";
    errors.push_back(std::move(e));
  }

  // objectValidator.Validate: property counts, additionalProperties, properties (sorted
  // here; Go visits its map in random order), required in declared order.
  void check_object(const json& v, const structural_schema& s, const std::string& path, const json* old) {
    auto keys = static_cast<int64_t>(v.size());
    if (s.min_properties && keys < *s.min_properties)
      errors.push_back(other(path, keys,
                             path + " in " + in_body + " should have at least "
                               + std::to_string(*s.min_properties) + " properties"));
    if (s.max_properties && keys > *s.max_properties) {
      openapi_error e = other(path, keys,
                              path + " in " + in_body + " should have at most "
                                + std::to_string(*s.max_properties) + " properties");
      e.kind = code::too_many_properties;
      e.valid = *s.max_properties;
      errors.push_back(std::move(e));
    }
    auto old_child = [&](const std::string& key) -> const json* {
      if (old == nullptr || !old->is_object())
        return nullptr;
      auto it = old->find(key);
      return it == old->end() ? nullptr : &*it;
    };
    if (s.additional_properties) {
      for (auto it = v.begin(); it != v.end(); ++it)
        if (s.properties.count(it.key()) == 0)
          validate(it.value(), *s.additional_properties, path + "." + it.key(), old_child(it.key()));
    }
    for (auto& [name, child] : s.properties) {
      auto it = v.find(name);
      if (it == v.end())
        continue;
      // The root's apiVersion and kind are not correlated (ratcheting.go isTypeMetaField).
      bool type_meta = path.empty() && (name == "apiVersion" || name == "kind");
      validate(*it, child, path.empty() ? name : path + "." + name, type_meta ? nullptr : old_child(name));
    }
    for (auto& name : s.required)
      if (!v.contains(name)) {
        openapi_error e;
        e.kind = code::required;
        e.name = path + "." + name;
        e.message = e.name + " in " + in_body + " is required";
        errors.push_back(std::move(e));
      }
  }
};

/// ErrorBody's rendering of a bad value: numbers and bools bare, strings %q, others JSON.
std::string bad_value(const json& v) {
  if (v.is_string())
    return go_quote(v.get<std::string>());
  if (v.is_number())
    return go_number(v);
  if (v.is_boolean())
    return v.get<bool>() ? "true" : "false";
  return v.dump();
}

// Follows kubernetes v1.36.3 staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/
// validation/validation.go, kubeOpenAPIResultToFieldErrors, with field.Error.ErrorBody of
// staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go.
field_error to_field_error(const std::string& prefix, const openapi_error& e) {
  field_error out;
  std::string name = e.name;
  if (!name.empty() && name[0] == '.')
    name.erase(0, 1);
  out.field = prefix;
  if (!e.name.empty() && e.name != ".")
    out.field = prefix.empty() ? name : prefix + "." + name;
  json value = e.value ? *e.value : json(nullptr);
  auto or_empty = [](const json& v) { return v.is_null() ? json("") : v; };
  switch (e.kind) {
    case code::required:
      out.reason = "FieldValueRequired";
      out.message = "Required value";
      break;
    case code::enum_fail: {
      out.reason = "FieldValueNotSupported";
      std::vector<std::string> quoted;
      for (auto& allowed : e.values)
        quoted.push_back(go_quote(allowed.is_string() ? allowed.get<std::string>() : allowed.dump()));
      out.message = "Unsupported value: " + bad_value(value);
      if (!quoted.empty())
        out.message += ": supported values: " + join(quoted, ", ");
      break;
    }
    case code::too_long:
      out.reason = "FieldValueTooLong";
      out.message = "Too long: may not be more than " + std::to_string(e.valid)
                    + (e.valid == 1 ? " byte" : " bytes");
      break;
    case code::max_items:
    case code::too_many_properties:
      out.reason = "FieldValueTooMany";
      out.message = "Too many: " + bad_value(value) + ": must have at most " + std::to_string(e.valid)
                    + (e.valid == 1 ? " item" : " items");
      break;
    case code::invalid_type:
      out.reason = "FieldValueTypeInvalid";
      out.message = "Invalid value: " + bad_value(or_empty(value)) + ": " + e.message;
      break;
    default:
      out.reason = "FieldValueInvalid";
      out.message = "Invalid value: " + bad_value(or_empty(value)) + ": " + e.message;
  }
  return out;
}

std::optional<int64_t> int_field(const json& s, const char* key) {
  auto it = s.find(key);
  if (it == s.end() || !it->is_number())
    return std::nullopt;
  return it->get<int64_t>();
}

std::optional<double> number_field(const json& s, const char* key) {
  auto it = s.find(key);
  if (it == s.end() || !it->is_number())
    return std::nullopt;
  return it->get<double>();
}

// Follows kubernetes v1.36.3 staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/
// schema/pruning/algorithm.go, prune and skipPrune.
void prune(json& x, const structural_schema* s, bool embedded_root, std::string path,
           std::vector<std::string>& unknown);

void skip_prune(json& x, const structural_schema* s, bool embedded_root, const std::string& path,
                std::vector<std::string>& unknown) {
  if (s == nullptr)
    return;
  bool embedded = s->embedded_resource || embedded_root;
  auto key_path = [&](const std::string& k) { return path.empty() ? k : path + "." + k; };
  if (x.is_object()) {
    for (auto it = x.begin(); it != x.end(); ++it) {
      const auto& k = it.key();
      if (embedded && (k == "apiVersion" || k == "kind" || k == "metadata"))
        continue;
      if (auto p = s->properties.find(k); p != s->properties.end())
        prune(it.value(), &p->second, false, key_path(k), unknown);
      else if (s->has_additional_properties)
        prune(it.value(), s->additional_properties.get(), false, key_path(k), unknown);
    }
  } else if (x.is_array()) {
    for (std::size_t i = 0; i < x.size(); ++i)
      skip_prune(x[i], s->items.get(), false, path + "[" + std::to_string(i) + "]", unknown);
  }
}

void prune(json& x, const structural_schema* s, bool embedded_root, std::string path,
           std::vector<std::string>& unknown) {
  if (s != nullptr && s->preserve_unknown_fields)
    return skip_prune(x, s, embedded_root, path, unknown);
  auto key_path = [&](const std::string& k) { return path.empty() ? k : path + "." + k; };
  if (x.is_object()) {
    if (s == nullptr) {
      for (auto it = x.begin(); it != x.end(); ++it)
        unknown.push_back(key_path(it.key()));
      x = json::object();
      return;
    }
    bool embedded = s->embedded_resource || embedded_root;
    std::vector<std::string> drop;
    for (auto it = x.begin(); it != x.end(); ++it) {
      const auto& k = it.key();
      bool meta = k == "apiVersion" || k == "kind" || k == "metadata";
      if (embedded && meta)
        continue;
      if (auto p = s->properties.find(k); p != s->properties.end())
        prune(it.value(), &p->second, false, key_path(k), unknown);
      else if (s->has_additional_properties)
        prune(it.value(), s->additional_properties.get(), false, key_path(k), unknown);
      else {
        if (!meta || !path.empty())
          unknown.push_back(key_path(k));
        drop.push_back(k);
      }
    }
    for (auto& k : drop)
      x.erase(k);
  } else if (x.is_array()) {
    for (std::size_t i = 0; i < x.size(); ++i)
      prune(x[i], s ? s->items.get() : nullptr, false, path + "[" + std::to_string(i) + "]", unknown);
  }
}

/// metav1.ObjectMeta's JSON fields: the strict decoder reports others under metadata.
const std::set<std::string>& object_meta_fields() {
  static const std::set<std::string> fields = {
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
    "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
    "annotations", "ownerReferences", "finalizers", "managedFields"};
  return fields;
}


} // namespace

std::string go_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\v': out += "\\v"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// Follows kubernetes v1.36.3 staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/
// schema/convert.go (NewStructural) and validation/formats.go (only validated formats kept).
expected<structural_schema> structural_from_json(const json& j) {
  if (!j.is_object())
    return make_error(ec::invalid_value, "schema node is not an object");
  structural_schema s;
  if (j.contains("type") && j["type"].is_string())
    s.types.push_back(j["type"].get<std::string>());
  if (j.value("x-kubernetes-int-or-string", false))
    s.types = {"integer", "string"};
  s.nullable = j.value("nullable", false);
  s.preserve_unknown_fields = j.value("x-kubernetes-preserve-unknown-fields", false);
  s.embedded_resource = j.value("x-kubernetes-embedded-resource", false);
  auto format = j.value("format", std::string{});
  static const std::set<std::string> string_formats = {"date-time", "datetime"};
  static const std::set<std::string> number_formats = {"int32", "int64", "float", "double"};
  bool stringy = s.types.empty() || s.types[0] == "string";
  bool numeric = !s.types.empty() && (s.types[0] == "integer" || s.types[0] == "number");
  if ((stringy && string_formats.count(format)) || (numeric && number_formats.count(format)))
    s.format = format;
  if (auto it = j.find("properties"); it != j.end() && it->is_object())
    for (auto p = it->begin(); p != it->end(); ++p) {
      auto child = structural_from_json(p.value());
      if (!child)
        return make_error(child.err().code, "properties." + p.key() + ": " + child.err().message);
      s.properties.emplace(p.key(), std::move(*child));
    }
  if (auto it = j.find("items"); it != j.end() && it->is_object()) {
    auto child = structural_from_json(*it);
    if (!child)
      return make_error(child.err().code, "items: " + child.err().message);
    s.items = std::make_shared<structural_schema>(std::move(*child));
  }
  if (auto it = j.find("additionalProperties"); it != j.end()) {
    if (it->is_object()) {
      auto child = structural_from_json(*it);
      if (!child)
        return make_error(child.err().code, "additionalProperties: " + child.err().message);
      s.has_additional_properties = true;
      s.additional_properties = std::make_shared<structural_schema>(std::move(*child));
    } else if (it->is_boolean() && it->get<bool>()) {
      s.has_additional_properties = true;
    }
  }
  if (auto it = j.find("required"); it != j.end() && it->is_array())
    for (auto& r : *it)
      if (r.is_string())
        s.required.push_back(r.get<std::string>());
  s.minimum = number_field(j, "minimum");
  s.maximum = number_field(j, "maximum");
  s.multiple_of = number_field(j, "multipleOf");
  s.exclusive_minimum = j.value("exclusiveMinimum", false);
  s.exclusive_maximum = j.value("exclusiveMaximum", false);
  s.max_length = int_field(j, "maxLength");
  s.min_length = int_field(j, "minLength");
  s.max_items = int_field(j, "maxItems");
  s.min_items = int_field(j, "minItems");
  s.max_properties = int_field(j, "maxProperties");
  s.min_properties = int_field(j, "minProperties");
  s.unique_items = j.value("uniqueItems", false);
  s.pattern = j.value("pattern", std::string{});
  if (!s.pattern.empty()) {
    // A pattern this cannot translate or compile is not enforced rather than guessed at.
    if (auto ere = ere_of(s.pattern)) {
      auto compiled = std::make_shared<compiled_pattern>();
      if (regcomp(&compiled->re, ere->c_str(), REG_EXTENDED | REG_NOSUB) == 0)
        s.pattern_regex = std::move(compiled);
    }
  }
  if (auto it = j.find("enum"); it != j.end() && it->is_array())
    s.enum_values = *it;
  s.list_type = j.value("x-kubernetes-list-type", std::string{});
  return s;
}

// Follows kubernetes v1.36.3 staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/
// schema/pruning/algorithm.go, PruneWithOptions with isResourceRoot=true, and
// schema/objectmeta/coerce.go, GetObjectMetaWithOptions (unknown metadata fields).
std::vector<std::string> prune_unknown_fields(json& object, const structural_schema& root) {
  std::vector<std::string> unknown;
  if (!object.is_object())
    return unknown;
  if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) {
    std::vector<std::string> drop;
    for (auto it = meta->begin(); it != meta->end(); ++it)
      if (object_meta_fields().count(it.key()) == 0)
        drop.push_back(it.key());
    for (auto& k : drop) {
      unknown.push_back("metadata." + k);
      meta->erase(k);
    }
  }
  prune(object, &root, true, "", unknown);
  std::sort(unknown.begin(), unknown.end());
  return unknown;
}

// Follows kubernetes v1.36.3 staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/
// schema/defaulting/prunenulls.go, PruneNonNullableNullsWithoutDefaults (no CRD here has
// defaults, so every non-nullable null goes).
void prune_non_nullable_nulls(json& x, const structural_schema* s) {
  auto field_schema = [&](const std::string& k) -> const structural_schema* {
    if (s == nullptr)
      return nullptr;
    if (auto it = s->properties.find(k); it != s->properties.end())
      return &it->second;
    return s->additional_properties.get();
  };
  if (x.is_object()) {
    std::vector<std::string> drop;
    for (auto it = x.begin(); it != x.end(); ++it) {
      auto* child = field_schema(it.key());
      if (it.value().is_null() && child != nullptr && !child->nullable)
        drop.push_back(it.key());
      else
        prune_non_nullable_nulls(it.value(), child);
    }
    for (auto& k : drop)
      x.erase(k);
  } else if (x.is_array()) {
    for (auto& item : x)
      prune_non_nullable_nulls(item, s ? s->items.get() : nullptr);
  }
}

// Follows kubernetes v1.36.3 staging/src/k8s.io/apiextensions-apiserver/pkg/registry/
// customresource/validator.go, Validate / ValidateUpdate (the whole object) and
// ValidateStatusUpdate (status only, against the status property's schema, field prefix
// "status", ratcheted against the old status).
std::vector<field_error> validate_custom_resource(const crd_schema& schema, const json& object,
                                                  const json* old, bool status_only) {
  node_validator v;
  std::string prefix;
  if (status_only) {
    auto it = object.find("status");
    auto sit = schema.root.properties.find("status");
    if (it == object.end() || sit == schema.root.properties.end())
      return {};
    const json* old_status = nullptr;
    if (old != nullptr && old->is_object())
      if (auto o = old->find("status"); o != old->end())
        old_status = &*o;
    v.validate(*it, sit->second, "", old_status);
    prefix = "status";
  } else {
    v.validate(object, schema.root, "", old);
  }
  std::vector<field_error> out;
  for (auto& e : v.errors)
    out.push_back(to_field_error(prefix, e));
  return out;
}

// Follows kubernetes v1.36.3 staging/src/k8s.io/apimachinery/pkg/runtime/error.go,
// strictDecodingError.Error, with the texts of apiextensions-apiserver
// pkg/apiserver/customresource_handler.go, schemaCoercingDecoder.Decode.
std::string strict_decoding_message(const std::vector<std::string>& unknown_fields) {
  std::vector<std::string> parts;
  for (auto& f : unknown_fields)
    parts.push_back("unknown field \"" + f + "\"");
  return "strict decoding error: " + join(parts, ", ");
}

// Follows kubernetes v1.36.3 staging/src/k8s.io/apimachinery/pkg/util/net/http.go,
// NewWarningHeader (code 299, agent "-").
std::string warning_header(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      quoted += '\\';
    quoted += c;
  }
  return "299 - " + quoted + "\"";
}

std::optional<error> enforce_schema(const crd_schema& schema, json& object, const json* old,
                                    bool status_only) {
  prune_unknown_fields(object, schema.root);
  prune_non_nullable_nulls(object, &schema.root);
  auto errors = validate_custom_resource(schema, object, old, status_only);
  if (errors.empty())
    return std::nullopt;
  auto name = object.value("/metadata/name"_json_pointer, std::string{});
  return invalid_error(schema.kind + "." + schema.group, schema.group, schema.kind, name, errors);
}

} // namespace schedopt::sim
