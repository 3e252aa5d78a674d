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
/// VMIs: everything but labels, finalizers, generateName, creationTimestamp and the
/// conditions' transition times (annotations and owner references carry cool-off).
void keep_decision_fields(virtual_machine_instance& vmi);

/// Other kinds are few (nodes) or read whole by their subscribers (VMIMs, requests).
template <class T>
void keep_decision_fields(T&) {}

} // namespace schedopt
