// The registry of optimization kinds. A kind is one named field of the request's spec
// and one actor; adding a kind is a new actor plus one line in optimization_kinds.cpp.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "actors/controller_context.hpp"

namespace schedopt {

struct optimization_kind {
  std::string name; // the spec field, e.g. "vmHyperconvergence"
  /// nullopt when the spec does not name this kind, else whether it is enabled.
  std::function<std::optional<bool>(const scheduling_optimization_spec&)> requested;
  std::function<optimization_kind_actor(caf::local_actor*, const controller_context&)> spawn;
};

const std::vector<optimization_kind>& optimization_kinds();

} // namespace schedopt
