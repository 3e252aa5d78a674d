// The status writer: every request's status updates coalesced into merge patches on
// the /status subresource (SPEC §3 "Status writer"); the policy is model/status_coalescer.
#pragma once

#include <caf/actor_system.hpp>

#include "actors/actors.hpp"
#include "model/duration.hpp"

namespace schedopt {

struct status_writer_options {
  duration flush_interval = std::chrono::seconds(1);
  duration heartbeat_interval = std::chrono::seconds(30);
  std::size_t max_details = 100;
  /// How often the writer checks what is due; also the retry delay after a failed write.
  duration tick_interval = std::chrono::milliseconds(100);
  /// --dry-run: patches are computed and logged at debug level, never sent.
  bool dry_run = false;
};

status_writer_actor spawn_status_writer(caf::actor_system& sys, api_client_actor api,
                                        status_writer_options options);

} // namespace schedopt
