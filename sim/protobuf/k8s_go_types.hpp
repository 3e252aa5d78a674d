#pragma once
// What sim/protobuf/k8s_go_types.py generates into the build tree from the k8s.io/api and
// k8s.io/apimachinery modules: their protobuf descriptors and the Go facts of their JSON.
#include <string_view>

namespace schedopt::sim::protobuf {

/// A serialized google.protobuf.FileDescriptorSet, dependencies first.
std::string_view k8s_descriptor_set();

/// JSON: {"messages": {message: {proto field: [json name, pointer, omitempty, omitzero]}},
///        "groups": {apiVersion: proto package}}.
std::string_view k8s_go_facts();

} // namespace schedopt::sim::protobuf
