#include "model/kinds/pod_hyperconvergence/pod_cool_off.hpp"

namespace schedopt::pod_hyperconvergence {

cool_off_holder cool_off_holder_of(const workload_ref& w) {
  if (w.kind == workload_kind::stateful_set)
    return {"apps/v1", "StatefulSet", "statefulsets", w.namespace_, w.name};
  return {"apps/v1", "ReplicaSet", "replicasets", w.namespace_, w.name};
}

expected<std::optional<timestamp>> cooling_off_until(const string_map& owner_annotations,
                                                     const std::string& key,
                                                     const std::string& request_uid,
                                                     duration period, timestamp now) {
  if (cool_off_written_by(owner_annotations, key, request_uid))
    return std::optional<timestamp>{};
  auto record = recorded_migration_time(owner_annotations, key);
  if (!record)
    return record.err();
  if (!*record || !is_cooling_off(**record, period, now))
    return std::optional<timestamp>{};
  return std::optional<timestamp>{eligible_after(**record, period)};
}

} // namespace schedopt::pod_hyperconvergence
