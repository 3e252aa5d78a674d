// The status writer: every request's status updates coalesced into JSON patches on
// the /status subresource (docs/design.md §3.8); the policy is model/status_coalescer.
// Requests are keyed by uid; every patch first tests metadata.uid, the one guard a
// PATCH can carry.
#pragma once

#include <caf/actor_system.hpp>

#include "actors/actors.hpp"
#include "model/duration.hpp"

namespace schedopt {

struct status_writer_options {
  duration flush_interval = std::chrono::seconds(1);
  duration heartbeat_interval = std::chrono::seconds(30);
  std::size_t max_details = 100;
  /// How often the writer checks what is due (and which retries have come due).
  duration tick_interval = std::chrono::milliseconds(100);
  /// A transient failure (5xx, 429, transport) is retried after retry_initial, doubling
  /// per failure of the same request up to retry_max; a written patch resets it.
  duration retry_initial = std::chrono::milliseconds(200);
  duration retry_max = std::chrono::seconds(30);
  /// Where a rejected status patch (400/403/schema 422) is evented as a Warning on the request;
  /// unset (the default): logged only.
  event_recorder_actor events;
  /// --dry-run: patches are computed and logged at debug level, never sent.
  bool dry_run = false;
};

status_writer_actor spawn_status_writer(caf::actor_system& sys, api_client_actor api,
                                        status_writer_options options);

} // namespace schedopt
