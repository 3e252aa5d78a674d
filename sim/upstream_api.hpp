// Where a mirroring object_store sends its writes when the simulator is attached to a
// real API server (schedopt-sim attach): each call returns the object as that server
// stored it, or its error with the server's HTTP status.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/error.hpp"

namespace schedopt::sim {

struct resource_type;

class upstream_api {
public:
  virtual ~upstream_api() = default;

  /// POST. The server drops .status of a type with a status subresource.
  virtual expected<nlohmann::json> create(const resource_type& type, const nlohmann::json& object) = 0;
  /// PUT of the object, or of its /status; its resourceVersion is the precondition.
  virtual expected<nlohmann::json> update(const resource_type& type, const nlohmann::json& object,
                                          bool status_only) = 0;
  virtual expected<nlohmann::json> get(const resource_type& type, const std::string& ns,
                                       const std::string& name) = 0;
  /// DELETE with `grace_seconds` (negative: the type's default). The object when it is
  /// still stored (finalizers, or a graceful pod deletion), nullopt when it is gone.
  /// POST to a subresource that is an action, not a state (pods/binding): the answer.
  virtual expected<nlohmann::json> post_subresource(const resource_type& type, const std::string& ns,
                                                    const std::string& name, const std::string& subresource,
                                                    const nlohmann::json& body) = 0;
  virtual expected<std::optional<nlohmann::json>> remove(const resource_type& type, const std::string& ns,
                                                         const std::string& name, int64_t grace_seconds) = 0;
};

} // namespace schedopt::sim
