// JSON -> model objects with simdjson. Unknown fields are ignored (real objects carry
// hundreds); a known field of the wrong type is an error naming its path, e.g.
// `status.phase: expected string, got number`.
#pragma once

#include <string_view>
#include <vector>

#include "model/error.hpp"
#include "model/objects.hpp"

namespace schedopt {

expected<virtual_machine_instance> decode_vmi(std::string_view json);
expected<virtual_machine_instance_migration> decode_vmim(std::string_view json);
expected<persistent_volume_claim> decode_pvc(std::string_view json);
expected<persistent_volume> decode_pv(std::string_view json);
expected<node> decode_node(std::string_view json);
expected<lease> decode_lease(std::string_view json);
expected<event> decode_event(std::string_view json);
expected<api_status> decode_status(std::string_view json);
expected<scheduling_optimization> decode_scheduling_optimization(std::string_view json);

/// Decoder for any of the above, by type; used by generic code (informers, lists).
/// Defined in model/decode_generic.hpp and instantiated by each type's owner: decode.cpp
/// for the core's types, a kind's decoder for the kind's (as decode_list and
/// decode_watch_event below).
template <class T>
expected<T> decode(std::string_view json);

/// An object that did not decode, with what could still be read of it (empty when not
/// readable) so the caller can warn, count it, and keep its last good version.
struct undecodable_object {
  std::string namespace_;
  std::string name;
  std::string resource_version;
  std::string type; // watch events only: ADDED, MODIFIED, ...
  error why;
};

/// A decoded list: items plus the list's metadata.resourceVersion and continue token.
template <class T>
struct object_list {
  std::vector<T> items;
  std::string resource_version;
  std::string continue_token;
  /// metadata.remainingItemCount: how many items the pages after this one hold, when the
  /// server says (an estimate: objects may come and go meanwhile).
  std::optional<int64_t> remaining_item_count;
  /// Items that did not decode; one bad object must not hide the thousands of good ones.
  std::vector<undecodable_object> skipped;
};

/// Decodes `{"kind":"...List","metadata":{...},"items":[...]}` item by item: an item
/// that fails lands in `skipped` (its error naming `items[i]...`), the others decode.
/// Only a document that is not a list (malformed JSON, `items` not an array) fails.
template <class T>
expected<object_list<T>> decode_list(std::string_view json);

/// One line of a watch stream: `{"type":"ADDED","object":{...}}`.
template <class T>
struct watch_event {
  std::string type;             // ADDED, MODIFIED, DELETED, BOOKMARK or ERROR
  T object;                     // set for ADDED, MODIFIED and DELETED
  std::string resource_version; // the object's metadata.resourceVersion (BOOKMARK too)
  api_status status;            // set for ERROR (e.g. code 410 Expired)
};

/// Decodes one watch event line; an unknown type is an invalid_value error.
template <class T>
expected<watch_event<T>> decode_watch_event(std::string_view json);

/// Best-effort read of a watch event line that failed to decode: type, and the object's
/// namespace, name and resourceVersion where they read as strings (else empty); `why`
/// is `error`, passed through. Lets a watch skip the event yet advance its resume point.
undecodable_object identify_watch_event(std::string_view json, error why);

} // namespace schedopt
