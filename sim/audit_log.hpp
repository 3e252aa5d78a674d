// The cluster's own record for tests to judge a controller by (docs/simulator.md): every
// VMIM ever created, followed through its phases past KubeVirt's garbage collection and
// deletion, and every mutating HTTP request with the User-Agent that sent it.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include <optional>

#include <nlohmann/json.hpp>

namespace schedopt::sim {

class object_store;

/// One mutating HTTP request as the API server answered it.
struct audit_write {
  std::chrono::system_clock::time_point time;
  std::string verb; // create, update, patch, delete
  std::string resource;
  std::string subresource;
  std::string ns;
  std::string name;
  std::string identity; // the User-Agent header, verbatim
  int code = 0;
  std::string user; // whom the token authenticated (system:admin, system:serviceaccount:<ns>:<name>), "" for nobody
};

/// One POST .../pods/<name>/eviction with the decision kube-apiserver made, so a test can
/// prove no Ready pod was evicted while its budget allowed no disruption.
struct audit_eviction {
  std::chrono::system_clock::time_point time;
  std::string identity; // the User-Agent header, verbatim
  std::string user;     // as in audit_write
  std::string ns;
  std::string pod;
  std::string pod_uid;
  std::string node;     // the pod's spec.nodeName when decided
  bool pod_ready = false;
  int code = 0;
  std::string outcome;  // eviction_outcome::outcome
  std::string pdb;
  std::optional<int64_t> disruptions_allowed; // the PDB's, when decided; none without a PDB
  bool budget_decremented = false;
  bool dry_run = false;
};

/// Names the HTTP client a thread is serving for as long as the scope lives, so a VMIM
/// the store commits during the request is credited to that client (the store knows no
/// clients, and its observer runs synchronously on the request's thread).
class client_identity_scope {
public:
  explicit client_identity_scope(std::string identity);
  ~client_identity_scope();
  client_identity_scope(const client_identity_scope&) = delete;
  client_identity_scope& operator=(const client_identity_scope&) = delete;

private:
  const std::string* saved_;
  std::string identity_;
};

/// Who an in-process component writes as while the scope lives (the simulated
/// statefulset-controller, kubelet, scheduler), for the pod records' `by`.
using component_identity_scope = client_identity_scope;

/// Held by shared_ptr: the store's observer keeps the log alive as long as the store.
class audit_log : public std::enable_shared_from_this<audit_log> {
public:
  /// Memory stays bounded: past these counts the oldest entries are dropped (and counted).
  /// A VMIM record is ~0.5 KB and a write ~0.3 KB, so the defaults cap near 250 MB.
  explicit audit_log(std::size_t max_vmims = 400000, std::size_t max_writes = 200000,
                     std::size_t max_pod_records = 200000);

  /// Records every VMIM change and every pod's lifecycle step (created, scheduled, ready,
  /// terminating, deleted) `store` commits from now on, whoever makes it (`this` must be
  /// owned by a shared_ptr).
  void attach(object_store& store);

  void record_write(audit_write write);
  void record_eviction(audit_eviction eviction);

  /// {"vmims":[...], "writes":[...], "evictions":[...], "pods":[...]} in creation /
  /// arrival order. `writes_since` is an
  /// absolute write index (how many writes were ever recorded before it): only writes from
  /// there on are listed, and `next_since` (if given) is set to the index after the last
  /// one, so a poller fetches just what is new. VMIM records are always listed whole
  /// because they change in place.
  nlohmann::json to_json(uint64_t writes_since = 0, uint64_t* next_since = nullptr) const;

  /// Entries dropped by the caps, for the server to report.
  uint64_t vmims_dropped() const;
  uint64_t writes_dropped() const;
  uint64_t pod_records_dropped() const;

private:
  struct vmim_record {
    std::string ns, name, uid, vmi, request_uid;
    std::string created_at, created_by;
    std::string source_node, target_node, phase, finished_at;
    // When KubeVirt took the migration up (its first phase past Pending): until then it
    // waits for a slot under KubeVirt's caps.
    std::string handed_off_at;
    bool deleted = false;
  };

  /// One step of a pod's life: `event` is created, scheduled, ready, terminating or
  /// deleted; `by` who made the write (an HTTP client's User-Agent or a component).
  struct pod_record {
    std::string time, event, ns, name, uid, owner_kind, owner_name, node, by;
  };

  /// `vmi`: the migrated VMI as stored at this commit, or null.
  void observe(const std::string& type, const nlohmann::json& object, const nlohmann::json* vmi);
  void observe_pod(const std::string& type, const nlohmann::json& pod);

  /// What tells one step of a pod from the next.
  struct pod_state {
    std::string uid, node;
    bool ready = false, terminating = false;
  };

  std::size_t max_vmims_;
  std::size_t max_writes_;
  mutable std::mutex mtx_;
  std::deque<vmim_record> vmims_;
  std::unordered_map<std::string, uint64_t> vmim_index_; // uid -> absolute position
  uint64_t vmims_dropped_ = 0;
  std::deque<audit_write> writes_;
  uint64_t writes_dropped_ = 0;
  std::size_t max_pod_records_;
  std::deque<audit_eviction> evictions_; // capped with the writes
  uint64_t evictions_dropped_ = 0;
  std::deque<pod_record> pods_;
  uint64_t pods_dropped_ = 0;
  // The last committed version of each pod ("ns/name"), to tell which step a MODIFIED is.
  std::unordered_map<std::string, pod_state> pod_states_;
};

/// RFC 3339 in UTC with milliseconds: 2026-01-02T03:04:05.678Z.
std::string rfc3339_millis(std::chrono::system_clock::time_point t);

} // namespace schedopt::sim
