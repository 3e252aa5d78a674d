#pragma once
// The built-in types as kube-apiserver's Go code knows them: each message's descriptor and,
// per field, what its Go struct tag says about its JSON form.
#include <string>
#include <unordered_map>
#include <vector>

#include <google/protobuf/descriptor.h>

namespace schedopt::sim::protobuf {

/// A Go struct field's JSON traits. A field the Go sources do not describe (a named slice
/// type's `items`, say) gets its proto name and omitempty, what most optional fields have.
struct go_field {
  std::string json_name;  // empty: an inline struct, whose fields are its parent's
  bool pointer = false;   // a zero value on the wire is set, not absent
  bool omitempty = true;  // a zero scalar, or an empty list or map, is left out
  bool omitzero = false;  // a zero struct is left out too
};

class k8s_types {
public:
  static const k8s_types& instance();

  /// The message of `kind` in `api_version` ("v1", "rbac.authorization.k8s.io/v1"); the
  /// meta.k8s.io kinds every group version serves (Status, DeleteOptions, List) as a
  /// fallback; nullptr for a kind with no message (a custom resource).
  const google::protobuf::Descriptor* message(const std::string& api_version, const std::string& kind) const;

  const google::protobuf::Descriptor* by_name(const std::string& full_name) const;

  go_field field(const google::protobuf::FieldDescriptor* f) const;

  /// The field whose JSON name is `json_name`, reached through the inline structs it
  /// may sit in (Volume's `persistentVolumeClaim` is in its inline VolumeSource): the
  /// inline fields first, the field last; empty when the type has no such field.
  std::vector<const google::protobuf::FieldDescriptor*> resolve(const google::protobuf::Descriptor* m,
                                                                const std::string& json_name) const;

  /// True when the Go type embeds TypeMeta: apiVersion and kind are its fields (a claim
  /// template's, say), with nothing behind them on the wire.
  bool has_type_meta(const google::protobuf::Descriptor* m) const;

  /// True for a message that is a Go named slice on the JSON side (metav1.Verbs,
  /// authentication's ExtraValue): one repeated `items` field and no struct behind it.
  bool is_slice(const google::protobuf::Descriptor* m) const;

private:
  k8s_types();
  google::protobuf::DescriptorPool pool_;
  std::unordered_map<std::string, std::unordered_map<std::string, go_field>> fields_; // message -> proto field
  std::unordered_map<std::string, std::string> packages_;                            // apiVersion -> package
};

} // namespace schedopt::sim::protobuf
