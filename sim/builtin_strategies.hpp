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

} // namespace schedopt::sim
