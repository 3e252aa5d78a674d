// JSON -> the pod kind's objects, with the project's decode_reader: unknown fields are
// ignored, a known field of the wrong type is an error naming its path
// (`spec.nodeName: expected string, got number`), absent and null read alike.
#pragma once

#include <string_view>

#include "model/decode_reader.hpp"
#include "model/error.hpp"
#include "model/kinds/pod_hyperconvergence/pod_objects.hpp"

namespace schedopt::pod_hyperconvergence {

expected<pod> decode_pod(std::string_view json);
expected<stateful_set> decode_stateful_set(std::string_view json);
expected<replica_set> decode_replica_set(std::string_view json);
expected<pod_disruption_budget> decode_pod_disruption_budget(std::string_view json);

/// One object read from a document already parsed. Found by argument-dependent lookup
/// from the generic decoders (model/decode_generic.hpp), which pod_decode.cpp
/// instantiates for these types so the kind's informers can list and watch them.
void read_into(detail::decode_reader& r, const detail::json_object& root, pod& out);
void read_into(detail::decode_reader& r, const detail::json_object& root, stateful_set& out);
void read_into(detail::decode_reader& r, const detail::json_object& root, replica_set& out);
void read_into(detail::decode_reader& r, const detail::json_object& root,
               pod_disruption_budget& out);

/// What the scheduler counts for a pod from its parts (k8s.io/component-helpers
/// resource/helpers.go PodRequests with default options): the containers' requests
/// summed; each init container a floor, a restartable one (restartPolicy: Always, a
/// sidecar) also added to the sum and to every later init container's; pod-level
/// requests (spec.resources) replacing CPU and memory when set; spec.overhead added.
/// A resource nothing asks for stays unset.
struct init_container_requests {
  resource_list requests;
  bool restartable = false;
};
resource_list effective_requests(const std::vector<resource_list>& containers,
                                 const std::vector<init_container_requests>& init_containers,
                                 const resource_list& pod_level, const resource_list& overhead);

} // namespace schedopt::pod_hyperconvergence
