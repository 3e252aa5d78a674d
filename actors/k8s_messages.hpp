// Messages of the Kubernetes client actors that need CAF types (errors, handles):
// watch stream pieces, informer notifications, event records.
#pragma once

#include <cstdint>
#include <string>

#include <caf/error.hpp>
#include <caf/meta/type_name.hpp>

#include "actors/model_inspect.hpp"
#include "k8s/api_types.hpp"
#include "model/objects.hpp"

namespace schedopt {

// -- watch streams (api_client_actor -> the watch's sink) -----------------------

/// Raw bytes of a watch body, in arrival order; newline-delimited JSON events that may
/// be split anywhere (feed them to k8s::watch_stream_parser).
struct watch_chunk {
  uint64_t watch_id = 0;
  std::string data;
};

/// The watch ended: `error` empty for a clean end (server timeoutSeconds, EOF), else
/// ec::gone for 410, transport_error for a dropped connection, etc.
struct watch_closed {
  uint64_t watch_id = 0;
  caf::error error;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, watch_chunk& x) {
  return f(caf::meta::type_name("watch_chunk"), x.watch_id, x.data);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, watch_closed& x) {
  return f(caf::meta::type_name("watch_closed"), x.watch_id, x.error);
}

// -- informer notifications (informer_actor<T> -> subscriber) -------------------

/// An object appeared (also sent for every existing object right after subscribing).
template <class T>
struct object_added {
  T object;
};

/// An object changed (resourceVersion differs); `old_object` is the previous state.
template <class T>
struct object_updated {
  T old_object;
  T object;
};

/// An object went away (watch DELETED, or missing from a relist); last known state.
template <class T>
struct object_deleted {
  T object;
};

/// The informer's initial list has completed and the subscriber has seen all current
/// objects (sent once per subscription, after the replayed object_added messages).
template <class T>
struct informer_synced {
  std::string resource_version;
};

template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, object_added<T>& x) {
  return f(caf::meta::type_name("object_added"), x.object);
}
template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, object_updated<T>& x) {
  return f(caf::meta::type_name("object_updated"), x.old_object, x.object);
}
template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, object_deleted<T>& x) {
  return f(caf::meta::type_name("object_deleted"), x.object);
}
template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, informer_synced<T>& x) {
  return f(caf::meta::type_name("informer_synced"), x.resource_version);
}

// -- events (anyone -> event_recorder_actor) -----------------------------------

/// One Kubernetes Event to record on `involved` (type "Normal" or "Warning").
struct event_record {
  object_reference involved;
  std::string type;
  std::string reason;
  std::string message;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, event_record& x) {
  return f(caf::meta::type_name("event_record"), x.involved, x.type, x.reason, x.message);
}

} // namespace schedopt

namespace schedopt {

/// Internal: the HTTP engine's thread -> api_client_actor when a transfer ends.
struct http_completion {
  uint64_t request_id = 0;
  int http_status = 0;         // 0 when the transfer failed before a status line
  std::string body;            // empty for watches (their bytes went to the sink)
  std::string retry_after;     // Retry-After header, if any
  std::string transport_error; // curl's message when the transfer failed
  bool request_sent = true;    // false: it failed before the request could reach the server
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, http_completion& x) {
  return f(caf::meta::type_name("http_completion"), x.request_id, x.http_status, x.body,
           x.retry_after, x.transport_error, x.request_sent);
}

} // namespace schedopt
