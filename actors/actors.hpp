// Every typed actor interface of schedopt in one place. Each alias says what the
// component is; each message line says who sends it and what comes back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "actors/type_ids.hpp"

namespace schedopt {

// -- Kubernetes API ---------------------------------------------------------------

/// Receives the raw bytes of one watch stream (informers implement it).
using watch_sink_actor = caf::typed_actor<
  // api_client (engine thread) -> sink: the next bytes of the watch body.
  caf::reacts_to<watch_chunk>,
  // api_client -> sink: the watch ended (clean, 410, dropped, cancelled). No reply.
  caf::reacts_to<watch_closed>>;

/// The one Kubernetes API client of the process: rate limit (QPS/burst), bounded queue,
/// retries with backoff for 429/5xx/transport errors, auth, metrics. Errors come back
/// as caf::error with category "schedopt" and a schedopt::ec code; the context holds
/// the Kubernetes Status message verbatim (read it with error_message()).
using api_client_actor = caf::typed_actor<
  // any -> api_client: GET one object; replies its JSON.
  caf::replies_to<k8s::get_request>::with<k8s::api_response>,
  // any -> api_client: GET a collection (all pages by default); replies every page.
  caf::replies_to<k8s::list_request>::with<k8s::list_response>,
  // any -> api_client: POST; replies the created object (201) as the server returned it.
  caf::replies_to<k8s::create_request>::with<k8s::api_response>,
  // any -> api_client: PATCH (merge patch by default, object or /status); replies the object.
  caf::replies_to<k8s::patch_request>::with<k8s::api_response>,
  // any -> api_client: PUT with resourceVersion; replies the object or ec::conflict.
  caf::replies_to<k8s::update_request>::with<k8s::api_response>,
  // any -> api_client: DELETE with preconditions; replies the server's answer body.
  caf::replies_to<k8s::delete_request>::with<k8s::api_response>,
  // pod kind -> api_client: POST a pod's eviction once, never retried; replies any answer
  // (4xx and 5xx too) or, without one, the transport error.
  caf::replies_to<k8s::eviction_request>::with<k8s::eviction_response>,
  // informer -> api_client: open a watch streaming to the sink; replies the watch id
  // once the request is on the wire (its bytes and end go to the sink).
  caf::replies_to<k8s::watch_request, watch_sink_actor>::with<uint64_t>,
  // informer -> api_client: stop a watch; the sink gets watch_closed(ec::cancelled).
  caf::reacts_to<atom::cancel, uint64_t>,
  // internal: engine thread -> api_client when a transfer ends.
  caf::reacts_to<http_completion>,
  // internal: api_client -> itself: start queued requests whose time has come.
  caf::reacts_to<atom::tick>>;

/// Who hears from an informer of T: every object (subscribe with the handle only) or
/// one object (subscribe with namespace and name).
template <class T>
using informer_subscriber_actor = caf::typed_actor<
  // informer -> subscriber: a new object; also replayed for existing ones on subscribe.
  caf::reacts_to<object_added<T>>,
  // informer -> subscriber: an object changed (resourceVersion differs).
  caf::reacts_to<object_updated<T>>,
  // informer -> subscriber: an object is gone (watch DELETED or absent from a relist).
  caf::reacts_to<object_deleted<T>>,
  // informer -> subscriber: the initial list is complete (once per subscription).
  caf::reacts_to<informer_synced<T>>>;

/// One list+watch of one resource type, decoded into model structs of T (one HTTP
/// watch per type, however many subscribers). Relists on 410, resumes from the last
/// resourceVersion after a drop, requests bookmarks.
template <class T>
using informer_actor = caf::typed_actor<
  // any -> informer: notify the subscriber about every object of T.
  caf::reacts_to<atom::subscribe, informer_subscriber_actor<T>>,
  // any -> informer: notify the subscriber about the object <namespace>/<name> only
  // (namespace "" for cluster-scoped objects).
  caf::reacts_to<atom::subscribe, informer_subscriber_actor<T>, std::string, std::string>,
  // any -> informer: stop notifying (all subscriptions of that subscriber).
  caf::reacts_to<atom::unsubscribe, informer_subscriber_actor<T>>,
  // any -> informer: has the initial list completed?
  caf::replies_to<atom::synced>::with<bool>,
  // any -> informer: every object in the store, sorted by namespace/name.
  caf::replies_to<atom::snapshot>::with<shared_list<T>>,
  // candidate -> informer: the object as this controller's own write answered it, stored
  // at once so the next evaluation reads its writes before the watch event arrives.
  caf::reacts_to<atom::observed, T>,
  // api_client -> informer: watch bytes and end (watch_sink_actor).
  caf::reacts_to<watch_chunk>,
  caf::reacts_to<watch_closed>,
  // internal: informer -> itself: (re)start list or watch after a backoff.
  caf::reacts_to<atom::restart>>;

using scheduling_optimization_informer_actor = informer_actor<scheduling_optimization>;
using vmi_informer_actor = informer_actor<virtual_machine_instance>;
using vmim_informer_actor = informer_actor<virtual_machine_instance_migration>;
using vm_informer_actor = informer_actor<virtual_machine>;
using pvc_informer_actor = informer_actor<persistent_volume_claim>;
using pv_informer_actor = informer_actor<persistent_volume>;
using node_informer_actor = informer_actor<node>;
using longhorn_replica_informer_actor = informer_actor<longhorn_replica>;
using kubevirt_informer_actor = informer_actor<kubevirt_cr>;

/// Whoever follows KubeVirt's migration policy (a kind's migration engine).
using kubevirt_policy_listener = caf::typed_actor<caf::reacts_to<kubevirt_policy>>;

/// Follows the KubeVirt CR (spec.configuration.migrations, observed version) and counts
/// KubeVirt's own VMIMs waiting for a slot, one watch event at a time; tells every
/// subscribed listener when either changes. One per controller stack, for every kind.
using kubevirt_policy_actor = informer_subscriber_actor<kubevirt_cr>::extend_with<
  informer_subscriber_actor<virtual_machine_instance_migration>>::extend_with<
  informer_subscriber_actor<node>>::extend<
  // listener -> policy: send the current kubevirt_policy now and on every change, until
  // the listener is gone.
  caf::reacts_to<atom::subscribe, kubevirt_policy_listener>>;

/// Hears when this replica gains or loses leadership.
using leadership_subscriber_actor = caf::typed_actor<
  // leader_elector -> subscriber: this replica holds the Lease now.
  caf::reacts_to<atom::started_leading>,
  // leader_elector -> subscriber: the Lease is lost (renew deadline passed) or released.
  caf::reacts_to<atom::stopped_leading>>;

/// Client-go style leader election on a coordination.k8s.io/v1 Lease.
using leader_elector_actor = caf::typed_actor<
  // any -> elector: tell the subscriber about leadership changes (and the current one
  // right away if leading).
  caf::reacts_to<atom::subscribe, leadership_subscriber_actor>,
  // any -> elector: is this replica the leader now?
  caf::replies_to<atom::leading>::with<bool>,
  // shutdown -> elector: give the Lease up (holder "" and leaseDurationSeconds 1) and
  // stop; replies true once written (false when not leading or the write failed).
  caf::replies_to<atom::release>::with<bool>,
  // internal: elector -> itself: retry period elapsed.
  caf::reacts_to<atom::tick>,
  // internal: elector -> itself: a renewal's renew deadline is due.
  caf::reacts_to<atom::timeout>>;

/// Records Kubernetes Events, aggregating repeats and rate limiting.
using event_recorder_actor = caf::typed_actor<
  // any -> recorder: record an event on an object; no reply (best effort, as client-go).
  caf::reacts_to<event_record>,
  // any -> recorder: replies true once every queued event has been written or dropped.
  caf::replies_to<atom::flush>::with<bool>,
  // controller -> recorder: this object was deleted; forget its spam-filter bucket and
  // aggregation records (a re-created object has another uid, so they are never used
  // again, and a controller serving requests for a year must not keep them).
  caf::reacts_to<atom::close, object_reference>,
  // internal: recorder -> itself: token bucket refilled.
  caf::reacts_to<atom::tick>>;

// -- controller -----------------------------------------------------------------------

/// Coalesces status updates of every request (keyed by uid) into JSON patches on
/// /status that first test metadata.uid: at most one per request per flush interval,
/// stage changes at once, a heartbeat while in progress, 5xx/429/409/transport retried
/// with per-request exponential backoff, a too-large status shrunk (details cut, counters
/// exact) and re-sent; stops writing for a request once it is gone (404, or the 422 of a
/// failed uid test: the name holds another uid) or a patch is rejected for good
/// (400/403/schema 422).
using status_writer_actor = caf::typed_actor<
  // request -> writer: start tracking a request by metadata.uid (metadata.name is the
  // patch path); replies its status as recorded (resume: re-opening a uid continues it).
  caf::replies_to<atom::open, scheduling_optimization>::with<scheduling_optimization_status>,
  // request/kind -> writer: stage change of request uid; replies true once written,
  // false when gone, rejected or never opened.
  caf::replies_to<stage_change>::with<bool>,
  // kind -> writer: request uid, kind name: keep this many more detail slots in that
  // kind's block for engine results (sent as candidates are handed on, before any skip).
  caf::reacts_to<atom::reserve, std::string, std::string, int64_t>,
  // kind/candidate -> writer: one item's result in a kind's block of request uid;
  // coalesced. No reply.
  caf::reacts_to<detail_result>,
  // request -> writer: terminal outcome of request uid; replies true once written, false
  // when gone, rejected or never opened.
  caf::replies_to<run_outcome>::with<bool>,
  // controller -> writer: the request with this uid was deleted; drop its pending updates.
  caf::reacts_to<atom::close, std::string>,
  // shutdown -> writer: write every pending update now, whatever the flush interval;
  // replies true once nothing is left unwritten (the caller bounds the wait).
  caf::replies_to<atom::flush>::with<bool>,
  // internal: writer -> itself: flush what is due.
  caf::reacts_to<atom::tick>>;

/// A storage driver: replica nodes of volumes (docs/design.md §6). One file per driver.
using storage_driver_actor = caf::typed_actor<
  // kind -> driver: replicas of these PVs; an error is a run-level driver failure.
  caf::replies_to<replica_query>::with<replica_answer>,
  // internal: the driver's HTTP engine thread -> driver: one call to the storage
  // system finished (drivers that need no I/O ignore it).
  caf::reacts_to<http_completion>>;

/// The longhorn storage driver: a storage driver that keeps the running replicas of
/// its own informer of replicas.longhorn.io (handed out as storage_driver_actor).
using longhorn_driver_actor = storage_driver_actor::extend_with<
  informer_subscriber_actor<longhorn_replica>>::extend<
  // internal: driver -> itself: queries waiting for the replica informer's first list
  // that have waited too long fail.
  caf::reacts_to<atom::timeout>>;

/// One optimization kind's run for one request: what the request actor sees of every
/// kind (actors/kinds/optimization_kinds.cpp lists them). The kind writes its status
/// block through the status writer as it goes (detail_result), replies once done and
/// quits.
using optimization_kind_actor = caf::typed_actor<
  // request -> kind: run with this spec fragment; replies the kind's counters and
  // summary once every item it started is final.
  caf::replies_to<kind_run>::with<kind_result>,
  // request -> kind: the request was deleted: create nothing more, let in-flight finish.
  caf::reacts_to<atom::stop>>;

/// One SchedulingOptimization's run: promote, run each enabled kind, finalize.
using request_actor = caf::typed_actor<
  // controller -> request: the request was deleted mid-run.
  caf::reacts_to<atom::stop>>;

/// Owns a controller stack's long-lived actors (informers, API client, status writer, ...):
/// linked to each, so none outlives it, and stops them in the order it was given.
using stack_owner_actor = caf::typed_actor<
  // stop_controller_stack -> owner: stop every actor of the stack in order, then quit.
  caf::reacts_to<atom::stop>>;

/// The controller root: watches SchedulingOptimizations and runs them one at a time,
/// oldest first (docs/design.md §1.2), one request actor each.
using controller_actor = informer_subscriber_actor<scheduling_optimization>::extend<
  // main/leader election -> controller: informers are synced (and we lead): start.
  caf::reacts_to<atom::run>>;

} // namespace schedopt
