// inspect() for the KubeVirt CR model structs (model/kubevirt_config.hpp), so its
// informer and the kubevirt_policy message can carry them.
#pragma once

#include <caf/meta/type_name.hpp>

#include "actors/model_inspect.hpp"
#include "model/kubevirt_config.hpp"

namespace schedopt {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kubevirt_cr& x) {
  auto per_cluster = opt(x.parallel_migrations_per_cluster);
  auto per_node = opt(x.parallel_outbound_migrations_per_node);
  auto per_gib = opt(x.completion_timeout_per_gib);
  auto progress = opt(x.progress_timeout);
  return f(caf::meta::type_name("kubevirt_cr"), x.metadata, per_cluster, per_node, per_gib,
           progress, x.phase, x.observed_version);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kubevirt_migration_limits& x) {
  return f(caf::meta::type_name("kubevirt_migration_limits"),
           x.parallel_migrations_per_cluster, x.parallel_outbound_migrations_per_node,
           x.completion_timeout_per_gib, x.progress_timeout_seconds, x.pinning_supported,
           x.priority_queue, x.version);
}

} // namespace schedopt
