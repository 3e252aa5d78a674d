// docs/cli.md `schedopt explain`: what the command asks of a kind, whichever kind answers.
#pragma once

#include <optional>
#include <string>

#include "model/objects.hpp"

namespace schedopt {

/// The request that would take the object next: the one the controller's queue runs first.
struct next_request {
  std::string name;
  request_stage stage = request_stage::none; // none, pending, evaluating, migrating
};

/// What `schedopt explain` was asked.
struct explain_query {
  std::string output = "table"; // or "json"
  std::string key;              // "<namespace>/<name>"; "" for every misplaced object
  std::optional<next_request> next; // the request the controller's queue runs next
};

} // namespace schedopt
