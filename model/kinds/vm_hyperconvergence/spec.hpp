// spec.vmHyperconvergence (docs/design.md §1): the vmHyperconvergence kind's own spec
// fields, read from the fragment the request model keeps for it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/error.hpp"
#include "model/objects.hpp"

namespace schedopt {

/// The kind's name: its spec field, its status block and its registry entry.
inline const std::string vm_hyperconvergence_kind = "vmHyperconvergence";

struct vm_hyperconvergence_spec {
  bool enabled = false;
  std::optional<std::string> cool_off_period;        // Go duration, validated later
  std::optional<int64_t> max_parallel_migrations;
};

/// Reads the fragment; a field of the wrong type is an error worded as the request's
/// decoder words its own ("spec.vmHyperconvergence.maxParallelMigrations: expected
/// integer, got number").
expected<vm_hyperconvergence_spec> decode_vm_hyperconvergence_spec(const kind_spec& fragment);

/// The fragment a request carries for `spec` (requests built in code: plan, explain,
/// tests).
kind_spec to_kind_spec(const vm_hyperconvergence_spec& spec);

/// The fragment `schedopt explain` evaluates with, given the next request's: enabled, with
/// that request's coolOffPeriod alone (nothing when the fragment does not decode).
kind_spec vm_hyperconvergence_explain_spec(const kind_spec& next);

} // namespace schedopt
