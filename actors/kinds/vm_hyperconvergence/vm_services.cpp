// See vm_services.hpp.
#include "actors/kinds/vm_hyperconvergence/vm_services.hpp"

#include <chrono>

#include "actors/informer_actor.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"
#include "model/placement/cool_off.hpp"

namespace schedopt {

kind_services start_vm_services(caf::actor_system& sys, const api_client_actor& api,
                                const settings& cfg) {
  // Kept: the cool-off record's two keys. Not part of the stack's readiness (a kind's
  // services never are): until it has listed, or where there is no VirtualMachine API, a
  // run lists VMs itself. Its backoff is longer so a missing API is asked about once a
  // minute, not every 10 s.
  informer_options options;
  options.kept.cool_off_annotations = cool_off_record_keys(cfg.vm_cool_off_annotation);
  // Its one reader (read_vm_annotations) takes records and opt-out labels only: a VM
  // with neither is not held (most of them, at any time).
  options.kept.only_worth_keeping = true;
  options.max_backoff = std::chrono::seconds(60);
  kind_services out;
  vm_services handles;
  handles.vms = spawn_informer<virtual_machine>(sys, api, options);
  out.actors.push_back(owned_informer(handles.vms));
  out.handles = handles;
  return out;
}

vm_informer_actor vm_informer_of(const controller_context& ctx) {
  const auto* any = find_kind_handles(ctx, vm_hyperconvergence_kind);
  const auto* handles = any ? std::any_cast<vm_services>(any) : nullptr;
  return handles ? handles->vms : vm_informer_actor{};
}

} // namespace schedopt
