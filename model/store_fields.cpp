// Clearing with swap releases the memory (clear() keeps a string's capacity).
#include "model/store_fields.hpp"

#include <algorithm>

namespace schedopt {

namespace {

template <class T>
void release(T& value) {
  T{}.swap(value);
}

string_map only_keys(const string_map& annotations, const std::vector<std::string>& keys) {
  string_map kept;
  for (const auto& key : keys)
    if (auto i = annotations.find(key); i != annotations.end())
      kept.insert(*i);
  return kept;
}

} // namespace

void keep_annotations(sparse_map& annotations, const std::vector<std::string>& keys) {
  if (!keys.empty())
    annotations = only_keys(annotations, keys);
}

void keep_annotations(string_map& annotations, const std::vector<std::string>& keys) {
  if (!keys.empty())
    annotations = only_keys(annotations, keys);
}

bool worth_keeping(const virtual_machine& vm) {
  return vm.opted_out || !vm.metadata.annotations.empty();
}

void keep_decision_fields(virtual_machine& vm, const kept_fields& kept) {
  keep_annotations(vm.metadata.annotations, kept.cool_off_annotations);
}

void keep_decision_fields(virtual_machine_instance& vmi, const kept_fields& kept) {
  keep_annotations(vmi.metadata.annotations, kept.cool_off_annotations);
  // Read by the evaluation: LiveMigratable=False only (first_blocking_filter); True,
  // the usual case, blocks nothing and is not kept.
  std::vector<condition> conditions;
  for (auto& c : vmi.conditions)
    if (c.type == "LiveMigratable" && c.status == "False") {
      conditions.push_back(std::move(c));
      release(conditions.back().last_transition_time);
    }
  vmi.conditions.swap(conditions);
  // Only volumes backed by a claim can hold a driver's replicas (driver_volumes_of).
  std::vector<vmi_volume> volumes;
  volumes.reserve(std::count_if(vmi.volumes.begin(), vmi.volumes.end(),
                                [](const vmi_volume& v) { return !v.claim_name.empty(); }));
  for (auto& v : vmi.volumes)
    if (!v.claim_name.empty())
      volumes.push_back(std::move(v));
  vmi.volumes.swap(volumes);
}

} // namespace schedopt
