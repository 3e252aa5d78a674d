// Pod deletion after the pod registry's graceful-delete strategy.
#include "sim/pod_deletion.hpp"

#include "sim/object_store.hpp"
#include "sim/pod_facts.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

int64_t pod_grace_period(const json& pod, std::optional<int64_t> requested) {
  int64_t period = 0;
  if (requested) {
    period = *requested;
  } else {
    auto spec = pod.value("/spec/terminationGracePeriodSeconds"_json_pointer, json());
    if (spec.is_number_integer())
      period = spec.get<int64_t>();
  }
  if (text_at(pod, "/spec/nodeName"_json_pointer).empty())
    period = 0;
  if (is_pod_terminal(pod))
    period = 0;
  if (period < 0)
    period = 1;
  return period;
}

expected<json> delete_pod(object_store& store, const std::string& ns, const std::string& name,
                          const json& delete_options) {
  auto pod = store.get(pods_key, ns, name);
  if (!pod)
    return pod.err();
  std::optional<int64_t> requested;
  if (delete_options.is_object()) {
    auto grace = delete_options.find("gracePeriodSeconds");
    if (grace != delete_options.end() && grace->is_number_integer())
      requested = grace->get<int64_t>();
  }
  return store.remove_gracefully(pods_key, ns, name, pod_grace_period(*pod, requested));
}

} // namespace schedopt::sim
