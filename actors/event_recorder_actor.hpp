// Kubernetes Events for the controller: aggregated (same object, reason and message ->
// count++ on the existing Event) and rate limited, as client-go's recorder does.
#pragma once

#include <chrono>
#include <string>

#include <caf/actor_system.hpp>

#include "actors/actors.hpp"

namespace schedopt {

struct event_recorder_options {
  std::string component = "schedopt"; // source.component / reportingComponent
  std::string host;                   // source.host
  double qps = 1.0 / 300;             // token bucket refill per involved object (client-go: 1 per 5 min)
  int burst = 25;                     // client-go's spam filter burst
  std::size_t max_queued = 1000;      // events beyond this are dropped (and logged)
};

event_recorder_actor spawn_event_recorder(caf::actor_system& sys, api_client_actor client,
                                          event_recorder_options options = {});

} // namespace schedopt
