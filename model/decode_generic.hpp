// The generic decoders of model/decode.hpp (decode<T>, decode_list<T>,
// decode_watch_event<T>) as templates, so whoever owns a type instantiates them for it:
// model/decode.cpp for the core's types, a kind's own decoder for the kind's watched
// types. Include only where you instantiate (SCHEDOPT_INSTANTIATE_DECODERS): every other
// caller needs model/decode.hpp only.
//
// A type T needs `read_into(detail::decode_reader&, const detail::json_object&, T&)`,
// found by argument-dependent lookup (declared in T's namespace) where the macro is used.
#pragma once

#include <optional>
#include <string_view>

#include "model/decode.hpp"
#include "model/decode_fields.hpp"
#include "model/decode_reader.hpp"
#include "model/json_split.hpp"

namespace schedopt {

namespace detail {

// Defined in model/decode.cpp, shared by every instantiation.

/// What can still be read of an item or event object that did not decode: its
/// namespace, name and resourceVersion, each field on its own.
void read_identity(decode_reader& r, const json_object& obj, undecodable_object& out);

/// A watch ERROR event's object, a metav1.Status.
void read_api_status(decode_reader& r, const json_object& root, api_status& out);

} // namespace detail

template <class T>
expected<T> decode(std::string_view json) {
  return detail::decode_document<T>(json, [](detail::decode_reader& r,
                                             const detail::json_object& root,
                                             T& out) { read_into(r, root, out); });
}

namespace detail {

// A list page item by item: the page split (model/json_split.hpp) when it can be, so
// only one item's DOM exists at a time; nullopt when it cannot, or when an item is not
// valid JSON, and the page is then parsed whole (which reports that as it always did).
template <class T>
std::optional<expected<object_list<T>>> decode_list_pieces(std::string_view json, bool split) {
  std::optional<split_json> pieces;
  if (split && !(pieces = split_top_level_array(json, "items")))
    return std::nullopt;
  decode_reader r;
  auto root = r.parse_root(pieces ? std::string_view{pieces->envelope} : json);
  if (pieces && !r.ok())
    return std::nullopt;
  object_list<T> out;
  auto meta = r.child(root, "metadata");
  r.read(meta, "resourceVersion", out.resource_version);
  r.read(meta, "continue", out.continue_token);
  r.read(meta, "remainingItemCount", out.remaining_item_count);
  if (!r.ok())
    return r.failure();
  auto each = [&](const json_object& item) {
    T value;
    read_into(r, item, value);
    if (r.ok())
      out.items.push_back(std::move(value));
  };
  auto skipped = [&](std::size_t, const json_object& item, const error& why) {
    undecodable_object bad;
    read_identity(r, item, bad);
    bad.why = why;
    out.skipped.push_back(std::move(bad));
  };
  if (!pieces)
    r.for_each_independent(root, "items", each, skipped);
  else if (!r.for_each_independent_split(pieces->elements, "items", each, skipped))
    return std::nullopt;
  if (!r.ok())
    return r.failure();
  return out;
}

} // namespace detail

template <class T>
expected<object_list<T>> decode_list(std::string_view json) {
  if (auto split = detail::decode_list_pieces<T>(json, true))
    return std::move(*split);
  return std::move(*detail::decode_list_pieces<T>(json, false));
}

template <class T>
expected<watch_event<T>> decode_watch_event(std::string_view json) {
  detail::decode_reader r;
  auto root = r.parse_root(json);
  watch_event<T> out;
  r.read(root, "type", out.type);
  r.require(out.type, root, "type");
  auto object = r.child(root, "object");
  r.read(r.child(object, "metadata"), "resourceVersion", out.resource_version);
  if (!r.ok())
    return r.failure();
  if (out.type == "ADDED" || out.type == "MODIFIED" || out.type == "DELETED") {
    if (!object.present)
      return make_error(ec::missing_field, "object: is required");
    read_into(r, object, out.object);
  } else if (out.type == "ERROR") {
    detail::read_api_status(r, object, out.status);
  } else if (out.type != "BOOKMARK") {
    return make_error(ec::invalid_value, "type: unknown watch event type \"" + out.type + "\"");
  }
  if (!r.ok())
    return r.failure();
  return out;
}

} // namespace schedopt

/// Instantiates decode, decode_list and decode_watch_event for `type` (fully qualified;
/// used at global scope).
#define SCHEDOPT_INSTANTIATE_DECODERS(type)                                                 \
  template schedopt::expected<type> schedopt::decode<type>(std::string_view);               \
  template schedopt::expected<schedopt::object_list<type>> schedopt::decode_list<type>(     \
    std::string_view);                                                                      \
  template schedopt::expected<schedopt::watch_event<type>>                                  \
  schedopt::decode_watch_event<type>(std::string_view);
