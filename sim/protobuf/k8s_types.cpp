#include "sim/protobuf/k8s_types.hpp"

#include <stdexcept>

#include <google/protobuf/descriptor.pb.h>
#include <nlohmann/json.hpp>

#include "sim/protobuf/k8s_go_types.hpp"

namespace schedopt::sim::protobuf {

namespace {
constexpr const char* meta_v1 = "k8s.io.apimachinery.pkg.apis.meta.v1";
}

const k8s_types& k8s_types::instance() {
  static const k8s_types types;
  return types;
}

k8s_types::k8s_types() {
  google::protobuf::FileDescriptorSet set;
  auto blob = k8s_descriptor_set();
  if (!set.ParseFromArray(blob.data(), static_cast<int>(blob.size())))
    throw std::runtime_error("the embedded Kubernetes descriptor set does not parse");
  for (const auto& file : set.file())
    if (pool_.BuildFile(file) == nullptr)
      throw std::runtime_error("the embedded Kubernetes descriptor " + file.name() + " does not build");
  auto facts = nlohmann::json::parse(k8s_go_facts());
  for (auto& [message, fields] : facts["messages"].items())
    for (auto& [name, f] : fields.items())
      fields_[message][name] = go_field{f[0].get<std::string>(), f[1].get<bool>(), f[2].get<bool>(), f[3].get<bool>()};
  for (auto& [api_version, package] : facts["groups"].items())
    packages_[api_version] = package.get<std::string>();
}

const google::protobuf::Descriptor* k8s_types::by_name(const std::string& full_name) const {
  return pool_.FindMessageTypeByName(full_name);
}

const google::protobuf::Descriptor* k8s_types::message(const std::string& api_version,
                                                        const std::string& kind) const {
  if (auto package = packages_.find(api_version); package != packages_.end())
    if (auto* m = by_name(package->second + "." + kind))
      return m;
  // apimachinery's meta.k8s.io kinds are added to every group version's scheme
  // (metav1.AddToGroupVersion): Status, DeleteOptions, WatchEvent, List.
  static const char* shared[] = {"Status", "DeleteOptions", "WatchEvent", "List", "APIResourceList", "APIGroup"};
  for (auto* k : shared)
    if (kind == k && (packages_.count(api_version) != 0 || api_version == "meta.k8s.io/v1"))
      return by_name(std::string(meta_v1) + "." + kind);
  return nullptr;
}

go_field k8s_types::field(const google::protobuf::FieldDescriptor* f) const {
  if (auto m = fields_.find(f->containing_type()->full_name()); m != fields_.end())
    if (auto it = m->second.find(f->name()); it != m->second.end())
      return it->second;
  return go_field{f->name()};
}

std::vector<const google::protobuf::FieldDescriptor*> k8s_types::resolve(const google::protobuf::Descriptor* m,
                                                                         const std::string& json_name) const {
  auto facts = fields_.find(m->full_name());
  if (facts == fields_.end()) {
    if (auto* f = m->FindFieldByName(json_name))
      return {f};
    return {};
  }
  for (const auto& [proto_name, f] : facts->second)
    if (!f.json_name.empty() && f.json_name == json_name)
      if (auto* field = m->FindFieldByName(proto_name))
        return {field};
  for (const auto& [proto_name, f] : facts->second) {
    if (!f.json_name.empty())
      continue;
    auto* field = m->FindFieldByName(proto_name);
    if (field == nullptr || field->message_type() == nullptr)
      continue;
    auto inner = resolve(field->message_type(), json_name);
    if (!inner.empty()) {
      inner.insert(inner.begin(), field);
      return inner;
    }
  }
  return {};
}

bool k8s_types::has_type_meta(const google::protobuf::Descriptor* m) const {
  auto facts = fields_.find(m->full_name());
  return facts != fields_.end() && facts->second.count("$typeMeta") != 0;
}

bool k8s_types::is_slice(const google::protobuf::Descriptor* m) const {
  return m->field_count() == 1 && m->field(0)->name() == "items" && m->field(0)->is_repeated()
         && fields_.count(m->full_name()) == 0;
}

} // namespace schedopt::sim::protobuf
