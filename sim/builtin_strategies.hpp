// What kube-apiserver does to every write of a type before storing it, apart from the
// type's schema: its registry strategy's canonicalization and the validation every
// object's metadata and some built-in kinds get.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "model/error.hpp"
#include "sim/object_store.hpp"

namespace schedopt::sim {

/// Canonicalizes `object` (a create or an update of `type`) as kube-apiserver's strategy
/// does, then validates it; an error is the 422 kube-apiserver answers.
std::optional<error> prepare_and_validate(const resource_type& type, nlohmann::json& object);

/// The defaults the decoder sets (SetDefaults_*) that the simulator models beyond a
/// pod's: a namespace labelled with its name. They come before the field manager
/// records the write, so the writer owns them.
void apply_decode_defaults(const resource_type& type, nlohmann::json& object);

/// What the type's strategy sets on a create through the API, beyond its defaults: a
/// namespace Active with the kubernetes finalizer, a budget's status zeroed.
void prepare_for_create(const resource_type& type, nlohmann::json& object);

} // namespace schedopt::sim
