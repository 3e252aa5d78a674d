// The resource endpoints of the simulated API server: get, list (paging, selectors,
// Tables), watch streams, create, update, patch, delete and the /status subresource.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/api_server_pager.hpp"
#include "sim/discovery.hpp"
#include "sim/object_store.hpp"
#include "sim/partitions.hpp"
#include "sim/pod_eviction.hpp"

namespace httplib {
struct Request;
struct Response;
} // namespace httplib

namespace schedopt::sim {

struct handler_options {
  std::chrono::milliseconds bookmark_interval{1000};
  std::chrono::milliseconds watch_drop_after{0}; // 0: never
  const std::atomic<bool>* stopping = nullptr;
  const network_partitions* partitions = nullptr; // watches to a cut client go silent
};

/// A resource URL after /api/<v> or /apis/<g>/<v>.
struct resource_target {
  const served_resource* resource = nullptr;
  std::string ns;
  std::string name;
  std::string subresource; // "", "status" or (pods) "eviction"
  bool watch_path = false; // legacy /watch/ prefix
};

class resource_handlers {
public:
  resource_handlers(object_store& store, const resource_registry& registry, handler_options options);

  /// `rest`: the path segments after the group version. An eviction's decision is put
  /// in `eviction` (when given) for the audit.
  void serve(const httplib::Request& req, httplib::Response& res, const std::string& group,
             const std::string& version, std::vector<std::string> rest,
             std::optional<eviction_outcome>* eviction = nullptr);

  /// Storage compacted every revision below `revision`: continue tokens older expire.
  void compact(uint64_t revision) { pager_.compact(revision); }

private:
  void get(const httplib::Request& req, httplib::Response& res, const resource_target& t);
  void list(const httplib::Request& req, httplib::Response& res, const resource_target& t);
  void watch(const httplib::Request& req, httplib::Response& res, const resource_target& t);
  void create(const httplib::Request& req, httplib::Response& res, const resource_target& t,
              const std::string& version);
  void update(const httplib::Request& req, httplib::Response& res, const resource_target& t,
              const std::string& version);
  void patch(const httplib::Request& req, httplib::Response& res, const resource_target& t,
             const std::string& version);
  void remove(const httplib::Request& req, httplib::Response& res, const resource_target& t);
  /// What a DELETE answers: the object, or a Success Status naming it.
  nlohmann::json delete_answer(const resource_target& t, const nlohmann::json& removed) const;
  void remove_collection(const httplib::Request& req, httplib::Response& res,
                         const resource_target& t);
  void evict(const httplib::Request& req, httplib::Response& res, const resource_target& t,
             std::optional<eviction_outcome>* decision);

  object_store& store_;
  const resource_registry& registry_;
  handler_options options_;
  list_pager pager_;
};

} // namespace schedopt::sim
