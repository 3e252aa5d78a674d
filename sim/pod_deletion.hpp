// A pod's DELETE as kube-apiserver's pod registry answers it: graceful for a pod bound
// to a node (the kubelet stops it, then removes it), at once for one never scheduled or
// already finished.
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "model/error.hpp"

namespace schedopt::sim {

class object_store;

/// The grace period a DELETE of `pod` gets: kubernetes pkg/registry/core/pod/strategy.go
/// podStrategy.CheckGracefulDelete (DeleteOptions.gracePeriodSeconds, else
/// spec.terminationGracePeriodSeconds, else 0; 0 for a pod without spec.nodeName or in a
/// terminal phase; a negative request becomes 1).
int64_t pod_grace_period(const nlohmann::json& pod, std::optional<int64_t> requested);

/// Deletes pod `ns/name` with the grace period above (`delete_options` is the request's
/// DeleteOptions, possibly null). Returns the pod as last stored.
expected<nlohmann::json> delete_pod(object_store& store, const std::string& ns, const std::string& name,
                                    const nlohmann::json& delete_options);

} // namespace schedopt::sim
