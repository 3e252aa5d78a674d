// Internal to model/decode.cpp: a path-tracking reader over a simdjson DOM object that
// treats absent and null fields alike (the API server sends both) and remembers the
// first type error as `<path>: expected <type>, got <type>`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "model/error.hpp"
#include "model/objects.hpp"
#include "model/object_uid.hpp"
#include "model/shared_string.hpp"

namespace schedopt::detail {

/// An object inside the document plus its path; `present` is false for an absent or
/// null field, which reads as empty everywhere.
struct json_object {
  simdjson::dom::object value;
  std::string path; // "" for the root, "status", "spec.volumes[2]", ...
  bool present = false;
};

class decode_reader {
public:
  /// Parses `json`; a parse failure becomes the reader's error. The returned object
  /// lives until the next parse_root on this thread or on this reader. A document up to
  /// reused_parser_limit is parsed by this thread's parser, which is reused and so
  /// keeps its capacity; a larger one by a parser of this reader, freed with it, so no
  /// thread keeps the DOM capacity of the largest document it ever saw.
  json_object parse_root(std::string_view json);

  static constexpr std::size_t reused_parser_limit = 1 << 20;

  bool ok() const { return !failure_; }
  const error& failure() const { return *failure_; }

  json_object child(const json_object& parent, std::string_view key);

  void read(const json_object& obj, std::string_view key, std::string& out);
  void read(const json_object& obj, std::string_view key, shared_string& out);
  void read(const json_object& obj, std::string_view key, short_name& out);
  void read(const json_object& obj, std::string_view key, pv_name& out);
  void read(const json_object& obj, std::string_view key, object_uid& out);
  void read(const json_object& obj, std::string_view key, decimal_text& out);
  void read(const json_object& obj, std::string_view key, std::optional<std::string>& out);
  void read(const json_object& obj, std::string_view key, int64_t& out);
  void read(const json_object& obj, std::string_view key, std::optional<int64_t>& out);
  void read(const json_object& obj, std::string_view key, bool& out);
  void read(const json_object& obj, std::string_view key, string_map& out);
  void read(const json_object& obj, std::string_view key, std::vector<std::string>& out);

  /// Calls `each(item)` for every object of the array `key`; a null item is skipped.
  template <class F>
  void for_each(const json_object& obj, std::string_view key, F&& each) {
    auto arr = array_field(obj, key);
    if (!arr)
      return;
    std::size_t index = 0;
    for (auto element : *arr) {
      std::string path = join(obj.path, key) + "[" + std::to_string(index++) + "]";
      if (element.is_null())
        continue;
      if (!element.is_object()) {
        fail_type(path, "object", element);
        return;
      }
      each(json_object{element.get_object().value_unsafe(), std::move(path), true});
      if (failure_)
        return;
    }
  }

  /// Calls `each(key, member)` for every member of `obj` whose value is an object (a
  /// request's kind fragments and status blocks, whose names the model does not know).
  /// Null members are skipped; a member of another type is the reader's error when
  /// `only_objects`, else skipped too.
  template <class F>
  void for_each_object_member(const json_object& obj, bool only_objects, F&& each) {
    if (failure_ || !obj.present)
      return;
    for (auto [key, value] : obj.value) {
      std::string path = join(obj.path, key);
      if (value.is_null())
        continue;
      if (!value.is_object()) {
        if (only_objects) {
          fail_type(path, "object", value);
          return;
        }
        continue;
      }
      each(key, json_object{value.get_object().value_unsafe(), std::move(path), true});
      if (failure_)
        return;
    }
  }

  /// The object's JSON text, minified (a fragment kept for code that reads it later).
  static std::string minified(const json_object& obj);

  /// Like for_each, but every item stands alone: an item that fails to read (a field of
  /// the wrong type inside it, or not an object at all) goes to `skipped(index, item,
  /// error)` with the reader's error cleared, and the next item is read. `item.present`
  /// is false for a non-object item. Only the array itself failing is the reader's error.
  template <class F, class G>
  void for_each_independent(const json_object& obj, std::string_view key, F&& each,
                            G&& skipped) {
    auto arr = array_field(obj, key);
    if (!arr)
      return;
    std::size_t index = 0;
    for (auto element : *arr)
      read_independent(element, index++, join(obj.path, key), each, skipped);
  }

  /// for_each over the elements a split (model/json_split.hpp) cut out of the array at
  /// `array_path`, each parsed alone by this thread's element parser. Returns false,
  /// reading no further, when an element is not valid JSON: the caller then parses the
  /// document whole, so that failure reads as before.
  /// `first_index`: the array index of the first element (a stream's later pieces).
  template <class F>
  bool for_each_split(const std::vector<std::string_view>& elements,
                      const std::string& array_path, F&& each, std::size_t first_index = 0) {
    std::size_t index = first_index;
    for (auto text : elements) {
      auto element = parse_element(text);
      if (!element)
        return false;
      std::string path = array_path + "[" + std::to_string(index++) + "]";
      if (element->is_null())
        continue;
      if (!element->is_object()) {
        fail_type(path, "object", *element);
        return true;
      }
      each(json_object{element->get_object().value_unsafe(), std::move(path), true});
      if (failure_)
        return true;
    }
    return true;
  }

  /// for_each_independent over split elements; false as for_each_split.
  template <class F, class G>
  bool for_each_independent_split(const std::vector<std::string_view>& elements,
                                  const std::string& array_path, F&& each, G&& skipped) {
    std::size_t index = 0;
    for (auto text : elements) {
      auto element = parse_element(text);
      if (!element)
        return false;
      read_independent(*element, index++, array_path, each, skipped);
    }
    return true;
  }

  /// Forgets the recorded error, for best-effort reads after a failure.
  void clear_failure() { failure_.reset(); }

  /// Records `<path>: is required` unless `value` is non-empty.
  void require(std::string_view value, const json_object& obj, std::string_view key);

  static std::string join(const std::string& path, std::string_view key);

private:
  template <class F, class G>
  void read_independent(simdjson::dom::element element, std::size_t at,
                        const std::string& array_path, F& each, G& skipped) {
    std::string path = array_path + "[" + std::to_string(at) + "]";
    if (element.is_null())
      return;
    json_object item;
    if (!element.is_object())
      fail_type(path, "object", element);
    else
      item = json_object{element.get_object().value_unsafe(), std::move(path), true};
    if (!failure_)
      each(item);
    if (failure_) {
      auto why = std::move(*failure_);
      failure_.reset();
      skipped(at, item, why);
    }
  }

  /// One element of a split document, parsed by a second per-thread parser so the
  /// root's DOM stays valid; the element lives until the next parse_element here.
  std::optional<simdjson::dom::element> parse_element(std::string_view json);

  std::optional<simdjson::dom::element> field(const json_object& obj, std::string_view key);
  /// The field's text if it is a string; absent, or another type (reported), nullopt.
  std::optional<std::string_view> string_field(const json_object& obj, std::string_view key);
  std::optional<simdjson::dom::array> array_field(const json_object& obj, std::string_view key);
  void fail_type(const std::string& path, const char* expected, simdjson::dom::element got);

  std::optional<error> failure_;
  std::unique_ptr<simdjson::dom::parser> large_document_parser_;
};

} // namespace schedopt::detail
