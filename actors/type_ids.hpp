// The CAF type-ID block of schedopt's core: every message type and atom outside the
// optimization kinds, each of which has a block of its own after this one
// (actors/kinds/<kind>/, at kind_type_id_base of its slot). IDs are positional and number types within this process only
// (no message leaves it).
#pragma once

#include <string>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/type_id.hpp>

#include "actors/controller_messages.hpp"
#include "actors/k8s_messages.hpp"
#include "actors/kubevirt_inspect.hpp"
#include "actors/longhorn_inspect.hpp"
#include "actors/model_inspect.hpp"
#include "k8s/api_types.hpp"
#include "model/objects.hpp"
#include "model/watched_types.hpp"

// Registers a watched model type with the four notifications of its informer, in the
// type-ID block `block`: the core's own below, a kind's for the types only it watches
// (actors/kinds/<kind>/).
#define SCHEDOPT_ADD_INFORMER_TYPES_TO(block, type)                                      \
  CAF_ADD_TYPE_ID(block, (type))                                                         \
  CAF_ADD_TYPE_ID(block, (schedopt::object_added<type>))                                 \
  CAF_ADD_TYPE_ID(block, (schedopt::object_updated<type>))                               \
  CAF_ADD_TYPE_ID(block, (schedopt::object_deleted<type>))                               \
  CAF_ADD_TYPE_ID(block, (schedopt::informer_synced<type>))                              \
  CAF_ADD_TYPE_ID(block, (std::vector<type>))
#define SCHEDOPT_ADD_INFORMER_TYPES(type) SCHEDOPT_ADD_INFORMER_TYPES_TO(schedopt, type)

CAF_BEGIN_TYPE_ID_BLOCK(schedopt, caf::first_custom_type_id)

  // -- Kubernetes API client (k8s/api_types.hpp, actors/k8s_messages.hpp)
  CAF_ADD_TYPE_ID(schedopt, (schedopt::k8s::resource))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::k8s::get_request))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::k8s::list_request))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::k8s::create_request))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::k8s::patch_request))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::k8s::update_request))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::k8s::delete_request))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::k8s::watch_request))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::k8s::api_response))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::k8s::list_response))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::k8s::eviction_request))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::k8s::eviction_response))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::watch_chunk))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::watch_closed))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::event_record))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::http_completion))

  // -- model objects carried by informers (model/watched_types.hpp, actors/model_inspect.hpp)
  SCHEDOPT_FOR_EACH_WATCHED_TYPE(SCHEDOPT_ADD_INFORMER_TYPES)
  CAF_ADD_TYPE_ID(schedopt, (schedopt::object_reference))

  // -- atoms (at most 10 characters each in CAF 0.17)
  CAF_ADD_ATOM(schedopt, schedopt::atom, subscribe, "subscribe")
  CAF_ADD_ATOM(schedopt, schedopt::atom, unsubscribe, "unsubscrib")
  CAF_ADD_ATOM(schedopt, schedopt::atom, synced, "synced")
  CAF_ADD_ATOM(schedopt, schedopt::atom, snapshot, "snapshot")
  CAF_ADD_ATOM(schedopt, schedopt::atom, cancel, "cancel")
  CAF_ADD_ATOM(schedopt, schedopt::atom, tick, "tick")
  CAF_ADD_ATOM(schedopt, schedopt::atom, restart, "restart")
  CAF_ADD_ATOM(schedopt, schedopt::atom, flush, "flush")
  CAF_ADD_ATOM(schedopt, schedopt::atom, leading, "leading")
  CAF_ADD_ATOM(schedopt, schedopt::atom, release, "release")
  CAF_ADD_ATOM(schedopt, schedopt::atom, started_leading, "startLead")
  CAF_ADD_ATOM(schedopt, schedopt::atom, stopped_leading, "stopLead")
  CAF_ADD_ATOM(schedopt, schedopt::atom, done, "done")

  // -- controller (appended by the controller's author below this line)
  CAF_ADD_TYPE_ID(schedopt, (schedopt::stage_change))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::detail_result))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::run_outcome))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::kind_run))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::kind_result))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::replica_answer))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::scheduling_optimization_status))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::kubevirt_migration_limits))
  CAF_ADD_TYPE_ID(schedopt, (schedopt::kubevirt_policy))
  CAF_ADD_ATOM(schedopt, schedopt::atom, open, "open")
  CAF_ADD_ATOM(schedopt, schedopt::atom, close, "close")
  CAF_ADD_ATOM(schedopt, schedopt::atom, stop, "stop")
  CAF_ADD_ATOM(schedopt, schedopt::atom, timeout, "timeout")
  CAF_ADD_ATOM(schedopt, schedopt::atom, run, "run")
  CAF_ADD_ATOM(schedopt, schedopt::atom, progress, "progress")
  CAF_ADD_ATOM(schedopt, schedopt::atom, reserve, "reserve")

  // -- own writes fed to informers
  CAF_ADD_ATOM(schedopt, schedopt::atom, observed, "observed")

CAF_END_TYPE_ID_BLOCK(schedopt)

namespace schedopt {

/// Where the type-ID block of the kind in registry slot `slot` begins (its
/// CAF_BEGIN_TYPE_ID_BLOCK's first ID). Each kind owns a fixed span after the core's
/// block, so no kind numbers its IDs after another kind's and includes its block.
constexpr caf::type_id_t kind_type_id_span = 64;
constexpr caf::type_id_t kind_type_id_base(caf::type_id_t slot) {
  return caf::id_block::schedopt::end + slot * kind_type_id_span;
}

} // namespace schedopt

// Informer snapshots share the store's objects (k8s/informer_store.hpp, copy-on-write):
// they never leave the process, so they are whitelisted instead of given serializers.
#define SCHEDOPT_ALLOW_SNAPSHOT(type) CAF_ALLOW_UNSAFE_MESSAGE_TYPE(schedopt::shared_list<type>)
SCHEDOPT_FOR_EACH_WATCHED_TYPE(SCHEDOPT_ALLOW_SNAPSHOT)
#undef SCHEDOPT_ALLOW_SNAPSHOT
// kind -> storage driver: carries the PV snapshot's objects, never a copy of them.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(schedopt::replica_query)
