// Events as client-go's record.EventRecorder writes them, for the simulated KubeVirt
// pieces that record events of their own (evacuation, drain).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace schedopt::sim {

class object_store;

/// An involvedObject reference to a KubeVirt object.
nlohmann::json kubevirt_ref(const char* kind, const std::string& ns, const std::string& name,
                            const std::string& uid = {});

/// Creates an Event about `involved`, stamped `when` (RFC 3339; empty: now); nothing when
/// the store serves no events (a bare store in unit tests).
void record_event(object_store& store, const nlohmann::json& involved, const std::string& type,
                  const std::string& reason, const std::string& message, const std::string& component,
                  const std::string& when = {});

} // namespace schedopt::sim
