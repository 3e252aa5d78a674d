// Informers: one list+watch per resource type feeding a store of model structs and
// typed add/update/delete notifications to subscribers.
#pragma once

#include <chrono>
#include <string>

#include <caf/actor_system.hpp>

#include "actors/actors.hpp"
#include "model/store_fields.hpp"

namespace schedopt {

struct informer_options {
  std::string namespace_;         // "" = all namespaces
  std::string label_selector;
  int64_t page_size = 500;        // list paging
  int64_t watch_timeout_seconds = 300; // server-side timeoutSeconds per watch
  std::chrono::milliseconds initial_backoff{200};
  std::chrono::milliseconds max_backoff{10000};
  kept_fields kept; // what the store keeps beyond the decision fields (store_fields.hpp)
};

/// Spawns the informer of T and starts listing at once. T is a watched type
/// (model/watched_types.hpp); its resource comes from k8s/resource_traits.hpp.
template <class T>
informer_actor<T> spawn_informer(caf::actor_system& sys, api_client_actor client,
                                 informer_options options = {});

} // namespace schedopt
