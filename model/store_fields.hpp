// What an informer's store keeps of an object: the fields schedopt decides on. The
// stores hold several objects per VMI. The stored kinds' structs already leave out
// the metadata no decision reads (objects.hpp: object_identity, lean_meta), so their
// decoders skip it; what is trimmed here depends on an object's content or on the
// configuration (which annotations, which volumes, which conditions).
#pragma once

#include "model/objects.hpp"

namespace schedopt {

/// What a store keeps that depends on the configuration.
struct kept_fields {
  /// The annotations decisions read on VMIs and VirtualMachines: the cool-off
  /// record's two keys (cool_off_record_of). Empty keeps every annotation.
  std::vector<std::string> cool_off_annotations;
  /// Keep only the objects a decision reads anything of (worth_keeping). To the store's
  /// subscribers an object that stops being kept is deleted and one that starts is
  /// added, as a watch with a field selector tells it.
  bool only_worth_keeping = false;
};

/// Whether a decision reads anything of this object once trimmed: a VirtualMachine only
/// for its cool-off record or its opt-out label, which few carry; every other kind always.
bool worth_keeping(const virtual_machine& vm);
template <class T>
bool worth_keeping(const T&) {
  return true;
}

/// Keeps only the annotations named in `keys` (all of them when `keys` is empty),
/// releasing the others' memory. Every kind's cool-off holder is trimmed so.
void keep_annotations(string_map& annotations, const std::vector<std::string>& keys);
void keep_annotations(sparse_map& annotations, const std::vector<std::string>& keys);

/// VMIs: identity (with the controlling VirtualMachine's name, the cool-off holder,
/// decoded from the owner references), the `kept` annotations, the volumes backed by a PVC or DataVolume,
/// a LiveMigratable=False condition (without its transition time), scheduling
/// constraints, requests, phase, node and migrationState. Dropped: labels, finalizers,
/// generateName, creationTimestamp, LiveMigratable=True and
/// other conditions, other volumes (cloud-init, container disks), other annotations.
void keep_decision_fields(virtual_machine_instance& vmi, const kept_fields& kept = {});

/// VirtualMachines: identity and the `kept` annotations (the cool-off holder's record);
/// everything else of a VM (owner references, its template, a copy of the VMI's spec)
/// is not decoded or is dropped.
void keep_decision_fields(virtual_machine& vm, const kept_fields& kept);

/// Other kinds are few (nodes) or read whole by their subscribers (VMIMs, requests).
template <class T>
void keep_decision_fields(T&) {}

template <class T>
void keep_decision_fields(T& obj, const kept_fields&) {
  keep_decision_fields(obj);
}

} // namespace schedopt
