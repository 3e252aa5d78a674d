// The core's watched types, the ones schedopt keeps an informer of for every kind: the
// one list the decoders, the informer and the core's CAF type IDs are instantiated
// from, so a new one is added here (and given its resource in k8s/resource_traits.hpp)
// instead of in every one of them. A type only one kind reads is that kind's own: it
// instantiates the same templates in its folders (model/kinds/<kind>/,
// actors/kinds/<kind>/) and starts its informer itself.
#pragma once

#include "model/kubevirt_config.hpp"
#include "model/longhorn.hpp"
#include "model/objects.hpp"

/// Calls X(type) for every watched type, fully qualified (CAF's type-ID macros expand
/// at global scope).
#define SCHEDOPT_FOR_EACH_WATCHED_TYPE(X)                                                 \
  X(schedopt::scheduling_optimization)                                                    \
  X(schedopt::virtual_machine_instance)                                                   \
  X(schedopt::virtual_machine_instance_migration)                                         \
  X(schedopt::virtual_machine)                                                            \
  X(schedopt::persistent_volume_claim)                                                    \
  X(schedopt::persistent_volume)                                                          \
  X(schedopt::node)                                                                       \
  X(schedopt::longhorn_replica)                                                           \
  X(schedopt::kubevirt_cr)
