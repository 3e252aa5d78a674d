// The shape client-go's recorder gives a new Event (tools/record/event.go makeEvent):
// generateName after the object, count 1, first and last timestamp now.
#include "sim/event_recorder.hpp"

#include <spdlog/spdlog.h>

#include "model/timestamp.hpp"
#include "sim/object_store.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

json kubevirt_ref(const char* kind, const std::string& ns, const std::string& name, const std::string& uid) {
  json ref = {{"apiVersion", "kubevirt.io/v1"}, {"kind", kind}, {"name", name}, {"namespace", ns}};
  if (!uid.empty())
    ref["uid"] = uid;
  return ref;
}

void record_event(object_store& store, const json& involved, const std::string& type, const std::string& reason,
                  const std::string& message, const std::string& component, const std::string& stamp) {
  if (!store.find_type("events"))
    return;
  auto when = stamp.empty() ? format_rfc3339(std::chrono::system_clock::now()) : stamp;
  auto name = involved.value("name", std::string{});
  json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"generateName", name + "."}, {"namespace", involved.value("namespace", std::string{})}}},
                {"involvedObject", involved},
                {"type", type},
                {"reason", reason},
                {"message", message},
                {"count", 1},
                {"firstTimestamp", when},
                {"lastTimestamp", when},
                {"source", {{"component", component}}},
                {"reportingComponent", component}};
  if (auto made = store.create("events", std::move(event)); !made)
    spdlog::warn("{}: {} event for {}: {}", component, reason, name, made.err().message);
}

} // namespace schedopt::sim
