// A second scheduler's binding, as kubernetes pkg/scheduler/framework/plugins/
// defaultbinder's Bind: POST pods/<name>/binding with the pod's uid, which
// pkg/registry/core/pod/storage BindingREST turns into spec.nodeName and PodScheduled.
#include "sim/attached_pods.hpp"

#include <mutex>

#include "sim/json_fields.hpp"
#include "sim/launcher_pods.hpp"
#include "sim/object_store.hpp"
#include "sim/pod_facts.hpp"
#include "sim/pod_placement.hpp"
#include "sim/pod_scheduler.hpp"
#include "sim/scenario_pods.hpp"
#include "sim/tick_thread.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

expected<bool> bind_through_api(object_store& store, const json& pod, const std::string& node) {
  json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", name_of(pod)}, {"namespace", namespace_of(pod)}, {"uid", uid_of(pod)}}},
                  {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  auto bound = store.post_subresource(pods_key, namespace_of(pod), name_of(pod), "binding", binding);
  if (!bound)
    return bound.err();
  return true;
}

} // namespace

struct attached_pods::impl {
  first_placements planned; // consumed as each pod is first bound
  launcher_pods launchers;
  pod_scheduler scheduler;
  tick_thread launcher_ticker, scheduler_ticker; // apart: thousands of launcher pods take a while

  impl(object_store& store, const storage_backend& storage, first_placements p)
    : planned(std::move(p)), launchers(store, false),
      scheduler(store, storage,
                {std::chrono::seconds{1}, stork_scheduler_name,
                 [&store](const json& pod, const std::string& node) { return bind_through_api(store, pod, node); },
                 [this](const json& pod) {
                   auto it = planned.find(first_placement_key(pod));
                   if (it == planned.end())
                     return std::string{};
                   auto node = it->second;
                   planned.erase(it);
                   return node;
                 }}) {}
};

attached_pods::attached_pods(object_store& store, const storage_backend& storage, first_placements planned)
  : impl_(std::make_unique<impl>(store, storage, std::move(planned))) {}

attached_pods::~attached_pods() { stop(); }

void attached_pods::start() {
  impl_->launcher_ticker.start(std::chrono::milliseconds{100},
                               [this](std::chrono::system_clock::time_point now) { impl_->launchers.tick(now); });
  impl_->scheduler_ticker.start(std::chrono::milliseconds{100},
                                [this](std::chrono::system_clock::time_point now) { impl_->scheduler.tick(now); });
}

void attached_pods::stop() {
  impl_->scheduler_ticker.stop();
  impl_->launcher_ticker.stop();
}

} // namespace schedopt::sim
