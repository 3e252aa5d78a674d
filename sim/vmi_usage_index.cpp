// The index follows commits in order (observers run under the store lock), so it never
// misses a version the way a bounded watch history could.
#include "sim/vmi_usage_index.hpp"

#include <cmath>

#include "model/quantity.hpp"
#include "sim/json_fields.hpp"
#include "sim/kubevirt_names.hpp"
#include "sim/object_store.hpp"
#include "sim/target_pod_scheduler.hpp"

namespace schedopt::sim {

pod_resources requests_of(const json& vmi) {
  pod_resources out;
  static const auto pointer = "/spec/domain/resources/requests"_json_pointer;
  if (!vmi.contains(pointer))
    return out;
  const json& requests = vmi.at(pointer);
  auto quantity = [&](const char* key, int64_t scale) -> int64_t {
    auto it = requests.find(key);
    if (it == requests.end())
      return 0;
    const auto& q = *it;
    if (q.is_string())
      return parse_quantity(q.get<std::string>(), scale).value_or(0);
    if (q.is_number())
      return static_cast<int64_t>(std::ceil(q.get<double>() * static_cast<double>(scale)));
    return 0;
  };
  out.cpu_millis = quantity("cpu", 1000);
  // What its virt-launcher pod asks the scheduler for: the VMI's memory plus the
  // launcher's overhead (template.go WithMemoryOverhead).
  out.memory_bytes = quantity("memory", 1) + launcher_memory_overhead(vmi);
  return out;
}

void vmi_usage_index::attach(object_store& store) {
  store.add_observer(kubevirt::vmi_key, [self = shared_from_this()](const object_store::change& c) {
    self->observe(c.type, c.object);
  }, /*replay_current=*/true);
}

void vmi_usage_index::observe(const std::string& type, const json& vmi) {
  auto key = text_at(vmi, "/metadata/namespace"_json_pointer) + "/"
             + text_at(vmi, "/metadata/name"_json_pointer);
  std::lock_guard<std::mutex> guard{mutex_};
  if (type == "DELETED") {
    by_name_.erase(key);
    return;
  }
  by_name_[key] = vmi_usage{text_at(vmi, "/status/nodeName"_json_pointer),
                            text_at(vmi, "/status/phase"_json_pointer), requests_of(vmi)};
}

void vmi_usage_index::for_each(
  const std::function<void(const std::string&, const vmi_usage&)>& visit) const {
  std::lock_guard<std::mutex> guard{mutex_};
  for (const auto& [name, usage] : by_name_)
    visit(name, usage);
}

} // namespace schedopt::sim
