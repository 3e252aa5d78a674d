// Clearing with swap releases the memory (clear() keeps a string's capacity).
#include "model/store_fields.hpp"

namespace schedopt {

namespace {

template <class T>
void release(T& value) {
  T{}.swap(value);
}

// Identity and version stay: the store keys on them and diffs relists by them.
void keep_identity_only(object_meta& m) {
  release(m.generate_name);
  release(m.creation_timestamp);
  release(m.labels);
  release(m.annotations);
  release(m.finalizers);
  release(m.owner_references);
}

} // namespace

void keep_decision_fields(persistent_volume_claim& pvc) {
  keep_identity_only(pvc.metadata);
}

void keep_decision_fields(persistent_volume& pv) {
  keep_identity_only(pv.metadata);
}

void keep_decision_fields(virtual_machine_instance& vmi) {
  auto& m = vmi.metadata;
  release(m.generate_name);
  release(m.creation_timestamp);
  release(m.labels);
  release(m.finalizers);
  for (auto& c : vmi.conditions)
    release(c.last_transition_time);
}

} // namespace schedopt
