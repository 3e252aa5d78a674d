// What an informer's store keeps of an object: the fields schedopt decides on. At
// 10,000 VMIs the stores hold 50,000 objects and every one is copied once more into each
// evaluation's snapshot, so metadata no decision reads (a PVC's CDI annotations and
// labels, finalizers, owner references) is dropped before an object is stored.
#pragma once

#include "model/objects.hpp"

namespace schedopt {

/// PVCs: name, namespace, uid, resourceVersion, spec.volumeName, storage class, phase.
void keep_decision_fields(persistent_volume_claim& pvc);
/// PVs: name, uid, resourceVersion, the CSI driver and handle, claimRef, node affinity.
void keep_decision_fields(persistent_volume& pv);
/// What a store keeps that depends on the configuration.
struct kept_fields {
  /// The annotations decisions read on VMIs and VirtualMachines: the cool-off
  /// record's two keys (cool_off_record_of). Empty keeps every annotation.
  std::vector<std::string> cool_off_annotations;
};

/// VMIs: identity, owner references (the cool-off holder), the `kept` annotations, the
/// volumes backed by a PVC or DataVolume, the LiveMigratable condition (without its
/// transition time), scheduling constraints, requests, phase, node and migrationState.
/// Dropped: labels, finalizers, generateName, creationTimestamp, other conditions, other
/// volumes (cloud-init, container disks), other annotations.
void keep_decision_fields(virtual_machine_instance& vmi, const kept_fields& kept = {});

/// VirtualMachines: identity and the `kept` annotations (the cool-off holder's record);
/// everything else of a VM (its template, a copy of the VMI's spec) is dropped.
void keep_decision_fields(virtual_machine& vm, const kept_fields& kept);

/// Other kinds are few (nodes) or read whole by their subscribers (VMIMs, requests).
template <class T>
void keep_decision_fields(T&) {}

template <class T>
void keep_decision_fields(T& obj, const kept_fields&) {
  keep_decision_fields(obj);
}

} // namespace schedopt
