// docs/design.md §9 cool-off for pods: the time of schedopt's last eviction of a
// workload, kept as an annotation on the owning StatefulSet or ReplicaSet so it
// survives a controller restart and outlives the evicted pod. The record is read and
// written with the VM kind's helpers (model/cool_off.hpp); only the holder and the key
// differ.
//
// The workload, not the pod, is the identity: a StatefulSet pod's replacement has its
// name, a ReplicaSet pod's has another, and what an operator wants spared from repeated
// disruption is the database or queue. A request may evict several pods of one workload
// in its run (its PDB paces them); a record this request wrote therefore never makes
// another of its pods cool off (cooling_off_until below). A Deployment's rollout makes
// a new ReplicaSet, without a record: the rollout disrupted every pod anyway.
#pragma once

#include <optional>
#include <string>

#include "model/placement/cool_off.hpp"
#include "model/kinds/pod_hyperconvergence/pod_objects.hpp"

namespace schedopt::pod_hyperconvergence {

constexpr const char* default_pod_cool_off_annotation =
  "schedopt.libopenstorage.org/last-eviction-time";

/// The StatefulSet or ReplicaSet that carries the record (apps/v1), for the merge patch
/// (model/cool_off.hpp cool_off_patch / cool_off_restore_patch).
cool_off_holder cool_off_holder_of(const workload_ref& w);

/// What the owner's record says for request `request_uid`: nullopt when there is no
/// record, when this request wrote it, or when it is no longer cooling off at `now`;
/// else the time the workload becomes eligible again. A record that does not parse is
/// returned as the error (the caller warns and treats the workload as not cooling off).
expected<std::optional<timestamp>> cooling_off_until(const string_map& owner_annotations,
                                                     const std::string& key,
                                                     const std::string& request_uid,
                                                     duration period, timestamp now);

} // namespace schedopt::pod_hyperconvergence
