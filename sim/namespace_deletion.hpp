// Deleting a namespace deletes what is in it, as kube-apiserver and the namespace
// controller of kube-controller-manager do together.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/error.hpp"
#include "sim/object_store.hpp"

namespace schedopt::sim {

/// DELETE of namespace `name`. Follows kubernetes v1.37.2 pkg/registry/core/namespace/
/// storage/storage.go (REST.Delete: a namespace with spec.finalizers is kept,
/// Terminating, with a deletionTimestamp; that object is the answer) and
/// pkg/controller/namespace/deletion/namespaced_resources_deleter.go (Delete: every
/// namespaced object in it is deleted, then the kubernetes finalizer is removed and the
/// namespace goes). The controller's work is done at once here, and the namespace's pods
/// go without their grace period; an object kept by its own finalizers keeps the
/// namespace Terminating until a later delete of the namespace finds it gone.
expected<nlohmann::json> delete_namespace(object_store& store, const std::string& name);

} // namespace schedopt::sim
