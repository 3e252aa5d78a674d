// The served resources (built-in core types plus CRDs) and the discovery documents
// kubectl and client-go read: /api, /api/v1, /apis, /apis/<g>, /apis/<g>/<v>, /version.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/error.hpp"
#include "sim/object_store.hpp"

namespace schedopt::sim {

struct crd_schema;

struct served_resource {
  resource_type type;                 // type.version is the storage version
  std::vector<std::string> versions;  // every served version, preferred first
  bool custom = false;                // defined by a CRD (no strategic merge, rv required on PUT)
  bool create_only = false;           // a review (TokenReview, SubjectAccessReview): never stored
  nlohmann::json printer_columns = nlohmann::json::array(); // CRD additionalPrinterColumns
  std::shared_ptr<const crd_schema> schema; // the storage version's openAPIV3Schema, if any
  /// Subresources besides /status, as discovery lists them (pods/eviction: its own
  /// group, version, kind and verbs).
  nlohmann::json subresources = nlohmann::json::array();
  /// For a resource served from another's objects (resource_type::stored_as): the object
  /// as this version shows it, and back. Null for a resource stored as it is served.
  nlohmann::json (*to_served)(const nlohmann::json&) = nullptr;
  nlohmann::json (*to_stored)(const nlohmann::json&) = nullptr;
  /// This version's own checks of a create (the object as served), beyond the stored
  /// type's: the 422 they fail with. Null when it has none.
  std::optional<error> (*validate_create)(const nlohmann::json&) = nullptr;
};

/// Core types schedopt touches (namespaces, nodes, persistentvolumeclaims,
/// persistentvolumes, events, configmaps, leases, customresourcedefinitions, pods with
/// their eviction subresource, statefulsets, replicasets, poddisruptionbudgets), the
/// owners of pods that no controller recreates here (daemonsets, jobs) and the kinds an
/// install contains (serviceaccounts, services, secrets, deployments, networkpolicies,
/// RBAC roles and bindings).
std::vector<served_resource> builtin_resources();

class resource_registry {
public:
  void add(served_resource resource);
  /// By URL coordinates; nullptr when not served.
  const served_resource* find(const std::string& group, const std::string& version,
                              const std::string& plural) const;
  const std::vector<served_resource>& all() const { return resources_; }

  nlohmann::json api_versions() const;                     // GET /api
  nlohmann::json api_group_list() const;                   // GET /apis
  nlohmann::json api_group(const std::string& group) const; // null when unknown
  /// GET /api/v1 or /apis/<g>/<v>; null when unknown.
  nlohmann::json resource_list(const std::string& group, const std::string& version) const;

private:
  std::vector<served_resource> resources_;
};

/// GET /version: the release the simulator follows.
nlohmann::json version_info();

} // namespace schedopt::sim
