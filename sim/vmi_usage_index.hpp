// Where every VMI runs and what it requests, kept current from the store's change
// feed, so picking a migration target sums 100,000 VMIs without parsing one of them.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "sim/target_pod_scheduler.hpp"

namespace schedopt::sim {

class object_store;

/// spec.domain.resources.requests of a VMI (quantity strings or plain numbers).
pod_resources requests_of(const nlohmann::json& vmi);

struct vmi_usage {
  std::string node;  // status.nodeName, "" while unscheduled
  std::string phase; // status.phase
  pod_resources requests;
};

class vmi_usage_index : public std::enable_shared_from_this<vmi_usage_index> {
public:
  /// Indexes the VMIs `store` holds and observes every one committed from now on; the
  /// store keeps the index alive.
  void attach(object_store& store);

  /// Calls `visit(namespace/name, usage)` for every VMI, under the index's lock: `visit`
  /// must not call the store.
  void for_each(const std::function<void(const std::string&, const vmi_usage&)>& visit) const;

private:
  void observe(const std::string& type, const nlohmann::json& vmi);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, vmi_usage> by_name_; // "namespace/name"
};

} // namespace schedopt::sim
