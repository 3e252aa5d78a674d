// The namespaces a run leaves alone (labelled schedopt.libopenstorage.org/exclude=true),
// read once per run by label selector: a handful of names, where a namespace informer
// would hold every namespace of the cluster. Every kind reads them this way. An answer
// that cannot be read in full fails the run: acting in a namespace that opted out is the
// one mistake this read exists to prevent.
#pragma once

#include <set>
#include <string>

#include <caf/error.hpp>

#include "actors/actors.hpp"
#include "k8s/api_types.hpp"

namespace schedopt {

/// Lists the labelled namespaces.
k8s::list_request opted_out_namespaces_request();

/// What the list's answer says: the names, or why it cannot be trusted (a page or a
/// Namespace that does not decode).
struct opted_out_answer {
  std::set<std::string> names;
  std::string error; // "" when every page and Namespace was read
};
opted_out_answer read_opted_out_answer(const k8s::list_response& resp);

/// A failed list, worded for the run's failure.
std::string opted_out_list_failure(const caf::error& err);

/// Lists them with `self` and calls `done(names)` or `failed(reason)`.
template <class Self, class Done, class Failed>
void read_opted_out_namespaces(Self* self, const api_client_actor& api, Done done,
                               Failed failed) {
  self->request(api, caf::infinite, opted_out_namespaces_request())
    .then(
      [=](const k8s::list_response& resp) {
        auto answer = read_opted_out_answer(resp);
        if (!answer.error.empty())
          return failed(std::move(answer.error));
        done(std::move(answer.names));
      },
      [=](caf::error& err) { failed(opted_out_list_failure(err)); });
}

} // namespace schedopt
