// Helpers shared by the controller actors.
#include "actors/controller_context.hpp"

namespace schedopt {

namespace {

template <class Uid, class Annotations>
object_reference reference_to(const char* api_version, const char* kind,
                              const basic_meta<Uid, Annotations>& m) {
  object_reference ref;
  ref.api_version = api_version;
  ref.kind = kind;
  ref.name = m.name;
  ref.namespace_ = m.namespace_;
  ref.uid = m.uid;
  ref.resource_version = m.resource_version;
  return ref;
}

} // namespace

const std::any* find_kind_handles(const controller_context& ctx, const std::string& kind) {
  if (!ctx.kind_handles)
    return nullptr;
  auto i = ctx.kind_handles->find(kind);
  return i == ctx.kind_handles->end() ? nullptr : &i->second;
}

void set_kind_handles(controller_context& ctx, const std::string& kind, std::any handles) {
  auto all = ctx.kind_handles ? *ctx.kind_handles : std::map<std::string, std::any>{};
  all[kind] = std::move(handles);
  ctx.kind_handles = std::make_shared<const std::map<std::string, std::any>>(std::move(all));
}

object_reference request_reference(const scheduling_optimization& so) {
  return reference_to("stork.libopenstorage.org/v1alpha1", "SchedulingOptimization", so.metadata);
}

object_reference vmi_reference(const virtual_machine_instance& vmi) {
  return reference_to("kubevirt.io/v1", "VirtualMachineInstance", vmi.metadata);
}

} // namespace schedopt
