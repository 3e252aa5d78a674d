#pragma once
// Kubernetes' protobuf serialization of built-in objects, as apimachinery's
// runtime/serializer/protobuf/protobuf.go writes it: the "k8s\0" magic, then a
// runtime.Unknown whose typeMeta names the object and whose raw bytes are its message.
// The JSON side is what kube-apiserver's Go structs show: the decoder follows each
// field's json tag (omitempty, omitzero, pointers), and the types with their own JSON
// form (Time, MicroTime, Duration, Quantity, IntOrString, RawExtension, FieldsV1, named
// slices) are written as their MarshalJSON methods write them.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace schedopt::sim::protobuf {

inline constexpr std::string_view media_type = "application/vnd.kubernetes.protobuf";

/// True when `body` starts with the protobuf serializer's magic.
bool has_magic(std::string_view body);

struct decoded {
  nlohmann::json object; // with apiVersion and kind, from the envelope
  std::string error;     // non-empty when the body is not a built-in object in protobuf
};

/// A protobuf request body as the JSON object kube-apiserver would decode from it.
decoded decode(std::string_view body);

/// `object` (with apiVersion and kind) in protobuf, or nullopt for a kind with no
/// message: a custom resource, which kube-apiserver serves only as JSON or YAML.
std::optional<std::string> encode(const nlohmann::json& object);

/// Drops the fields of a built-in object that its Go type does not have, as the decoder
/// does, and returns their paths, sorted, as the strict decoder names them ("bogus",
/// "spec.containers[0].foo"); nothing for a kind with no message.
std::vector<std::string> drop_unknown_fields(nlohmann::json& object, const std::string& api_version,
                                             const std::string& kind);

} // namespace schedopt::sim::protobuf
