// Path-tracking, null-tolerant field access on simdjson's DOM (see decode_reader.hpp).
#include "model/decode_reader.hpp"

#include <cmath>

namespace schedopt::detail {

namespace {

const char* json_type_name(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: return "array";
    case simdjson::dom::element_type::OBJECT: return "object";
    case simdjson::dom::element_type::INT64:
    case simdjson::dom::element_type::UINT64:
    case simdjson::dom::element_type::DOUBLE: return "number";
    case simdjson::dom::element_type::STRING: return "string";
    case simdjson::dom::element_type::BOOL: return "boolean";
    case simdjson::dom::element_type::NULL_VALUE: return "null";
  }
  return "unknown";
}

} // namespace

std::string decode_reader::join(const std::string& path, std::string_view key) {
  if (path.empty())
    return std::string(key);
  std::string out = path;
  out += '.';
  out.append(key);
  return out;
}

std::string decode_reader::minified(const json_object& obj) {
  return obj.present ? simdjson::minify(obj.value) : std::string("{}");
}

json_object decode_reader::parse_root(std::string_view json) {
  // One parser per thread: its buffers are reused across documents.
  thread_local simdjson::dom::parser reused;
  simdjson::dom::parser* parser = &reused;
  if (json.size() > reused_parser_limit) {
    large_document_parser_ = std::make_unique<simdjson::dom::parser>();
    parser = large_document_parser_.get();
  }
  auto result = parser->parse(json.data(), json.size());
  if (result.error()) {
    failure_ = make_error(ec::parse_error, std::string("malformed JSON: ")
                                             + simdjson::error_message(result.error()));
    return {};
  }
  simdjson::dom::element root = result.value_unsafe();
  if (!root.is_object()) {
    fail_type("(document)", "object", root);
    return {};
  }
  return json_object{root.get_object().value_unsafe(), std::string(), true};
}

std::optional<simdjson::dom::element> decode_reader::parse_element(std::string_view json) {
  // Elements are objects of a few KB: this parser stays that small.
  thread_local simdjson::dom::parser parser;
  auto result = parser.parse(json.data(), json.size());
  if (result.error())
    return std::nullopt;
  return result.value_unsafe();
}

std::optional<simdjson::dom::element> decode_reader::field(const json_object& obj,
                                                           std::string_view key) {
  if (failure_ || !obj.present)
    return std::nullopt;
  auto found = obj.value.at_key(key);
  if (found.error())
    return std::nullopt;
  simdjson::dom::element e = found.value_unsafe();
  if (e.is_null())
    return std::nullopt;
  return e;
}

void decode_reader::fail_type(const std::string& path, const char* expected,
                              simdjson::dom::element got) {
  if (failure_)
    return;
  failure_ = make_error(ec::type_mismatch, (path.empty() ? std::string("(document)") : path)
                                             + ": expected " + expected + ", got "
                                             + json_type_name(got));
}

json_object decode_reader::child(const json_object& parent, std::string_view key) {
  auto e = field(parent, key);
  std::string path = join(parent.path, key);
  if (!e)
    return json_object{{}, std::move(path), false};
  if (!e->is_object()) {
    fail_type(path, "object", *e);
    return json_object{{}, std::move(path), false};
  }
  return json_object{e->get_object().value_unsafe(), std::move(path), true};
}

std::optional<std::string_view> decode_reader::string_field(const json_object& obj,
                                                            std::string_view key) {
  auto e = field(obj, key);
  if (!e)
    return std::nullopt;
  if (!e->is_string()) {
    fail_type(join(obj.path, key), "string", *e);
    return std::nullopt;
  }
  return e->get_string().value_unsafe();
}

void decode_reader::read(const json_object& obj, std::string_view key, std::string& out) {
  if (auto text = string_field(obj, key))
    out = std::string(*text);
}

void decode_reader::read(const json_object& obj, std::string_view key, shared_string& out) {
  if (auto text = string_field(obj, key))
    out = shared_string(*text);
}

void decode_reader::read(const json_object& obj, std::string_view key, short_name& out) {
  if (auto text = string_field(obj, key))
    out.assign(text->data(), text->size());
}

void decode_reader::read(const json_object& obj, std::string_view key, pv_name& out) {
  if (auto text = string_field(obj, key))
    out = pv_name(*text);
}

void decode_reader::read(const json_object& obj, std::string_view key, object_uid& out) {
  if (auto text = string_field(obj, key))
    out = object_uid(*text);
}

void decode_reader::read(const json_object& obj, std::string_view key, decimal_text& out) {
  if (auto text = string_field(obj, key))
    out = *text;
}

void decode_reader::read(const json_object& obj, std::string_view key,
                         std::optional<std::string>& out) {
  if (!field(obj, key))
    return;
  std::string value;
  read(obj, key, value);
  if (ok())
    out = std::move(value);
}

void decode_reader::read(const json_object& obj, std::string_view key, int64_t& out) {
  auto e = field(obj, key);
  if (!e)
    return;
  std::string path = join(obj.path, key);
  switch (e->type()) {
    case simdjson::dom::element_type::INT64:
      out = e->get_int64().value_unsafe();
      return;
    case simdjson::dom::element_type::UINT64:
      failure_ = make_error(ec::invalid_value, path + ": integer out of range");
      return;
    case simdjson::dom::element_type::DOUBLE: {
      // JSON has one number type; accept 3.0 but not 3.5.
      double d = e->get_double().value_unsafe();
      if (std::trunc(d) == d && std::fabs(d) < 9.0e15) {
        out = static_cast<int64_t>(d);
        return;
      }
      failure_ = make_error(ec::type_mismatch, path + ": expected integer, got " + std::to_string(d));
      return;
    }
    default:
      fail_type(path, "integer", *e);
  }
}

void decode_reader::read(const json_object& obj, std::string_view key,
                         std::optional<int64_t>& out) {
  if (!field(obj, key))
    return;
  int64_t value = 0;
  read(obj, key, value);
  if (ok())
    out = value;
}

void decode_reader::read(const json_object& obj, std::string_view key, bool& out) {
  auto e = field(obj, key);
  if (!e)
    return;
  if (!e->is_bool()) {
    fail_type(join(obj.path, key), "boolean", *e);
    return;
  }
  out = e->get_bool().value_unsafe();
}

void decode_reader::read(const json_object& obj, std::string_view key, string_map& out) {
  json_object map = child(obj, key);
  if (!map.present)
    return;
  for (auto [k, v] : map.value) {
    if (!v.is_string()) {
      fail_type(join(map.path, k), "string", v);
      return;
    }
    out[std::string(k)] = std::string(v.get_string().value_unsafe());
  }
}

std::optional<simdjson::dom::array> decode_reader::array_field(const json_object& obj,
                                                               std::string_view key) {
  auto e = field(obj, key);
  if (!e)
    return std::nullopt;
  if (!e->is_array()) {
    fail_type(join(obj.path, key), "array", *e);
    return std::nullopt;
  }
  return e->get_array().value_unsafe();
}

void decode_reader::read(const json_object& obj, std::string_view key,
                         std::vector<std::string>& out) {
  auto arr = array_field(obj, key);
  if (!arr)
    return;
  std::size_t index = 0;
  for (auto element : *arr) {
    if (!element.is_string()) {
      fail_type(join(obj.path, key) + "[" + std::to_string(index) + "]", "string", element);
      return;
    }
    out.emplace_back(element.get_string().value_unsafe());
    ++index;
  }
}

void decode_reader::require(std::string_view value, const json_object& obj,
                            std::string_view key) {
  if (failure_ || !value.empty())
    return;
  failure_ = make_error(ec::missing_field, join(obj.path, key) + ": is required");
}

} // namespace schedopt::detail
