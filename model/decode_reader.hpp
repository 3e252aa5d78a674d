// Internal to model/decode.cpp: a path-tracking reader over a simdjson DOM object that
// treats absent and null fields alike (the API server sends both) and remembers the
// first type error as `<path>: expected <type>, got <type>`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "model/error.hpp"
#include "model/objects.hpp"

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
  /// lives until the next parse_root on this thread.
  json_object parse_root(std::string_view json);

  bool ok() const { return !failure_; }
  const error& failure() const { return *failure_; }

  json_object child(const json_object& parent, std::string_view key);

  void read(const json_object& obj, std::string_view key, std::string& out);
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
    for (auto element : *arr) {
      std::size_t at = index++;
      std::string path = join(obj.path, key) + "[" + std::to_string(at) + "]";
      if (element.is_null())
        continue;
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
  }

  /// Forgets the recorded error, for best-effort reads after a failure.
  void clear_failure() { failure_.reset(); }

  /// Records `<path>: is required` unless `value` is non-empty.
  void require(const std::string& value, const json_object& obj, std::string_view key);

  static std::string join(const std::string& path, std::string_view key);

private:
  std::optional<simdjson::dom::element> field(const json_object& obj, std::string_view key);
  std::optional<simdjson::dom::array> array_field(const json_object& obj, std::string_view key);
  void fail_type(const std::string& path, const char* expected, simdjson::dom::element got);

  std::optional<error> failure_;
};

} // namespace schedopt::detail
