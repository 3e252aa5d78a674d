// Informers: one list+watch per resource type feeding a store of model structs and
// typed add/update/delete notifications to subscribers.
#pragma once

#include <chrono>
#include <string>

#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>

#include "actors/actors.hpp"
#include "actors/stack_owner_actor.hpp"
#include "k8s/resource_traits.hpp"
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
  /// List nothing until first asked about its content (subscribe, synced, snapshot):
  /// for types only some requests need, so a cluster that never asks holds none of
  /// them (docs/design.md "Data path"). Once started it keeps watching.
  bool on_demand = false;
};

/// Spawns the informer of T and starts listing at once (unless on_demand). T is a
/// watched type: the core's (model/watched_types.hpp, instantiated by
/// informer_actor.cpp) or a kind's own (instantiated in the kind's folder from
/// informer_actor_impl.hpp); its resource comes from its k8s::resource_traits.
template <class T>
informer_actor<T> spawn_informer(caf::actor_system& sys, api_client_actor client,
                                 informer_options options = {});

/// The informer as the stack owner stops it, named "<Kind> informer" from its traits:
/// the core's informers and a kind's own are named alike.
template <class T>
owned_actor owned_informer(const informer_actor<T>& handle) {
  return {std::string{k8s::resource_traits<T>::kind} + " informer",
          caf::actor_cast<caf::actor>(handle)};
}

} // namespace schedopt
