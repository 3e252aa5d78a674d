// The simulator's in-memory API storage: resource-agnostic JSON objects with
// Kubernetes semantics (resourceVersion, uid, generation, generateName, finalizers,
// bounded watch history). Thread-safe; the HTTP layer and the in-process controllers
// (KubeVirt, storage) share one instance.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/error.hpp"
#include "sim/managed_fields.hpp"
#include "sim/upstream_api.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

/// One served resource, as discovery and the CRD describe it.
struct resource_type {
  std::string group;   // "" for core
  std::string version; // "v1", "v1alpha1"
  std::string kind;
  std::string plural;
  std::string singular;
  std::string list_kind;
  bool namespaced = true;
  bool status_subresource = false;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;

  /// A second version of another type's objects (events.k8s.io/v1 Events are core/v1
  /// Events): that type's key. Empty for a type stored on its own.
  std::string stored_as;

  /// "plural" for core, "plural.group" otherwise — the store's key for this resource.
  std::string key() const {
    if (!stored_as.empty())
      return stored_as;
    return group.empty() ? plural : plural + "." + group;
  }
  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
};

struct watch_event {
  std::string type; // ADDED, MODIFIED, DELETED
  json object;
  uint64_t resource_version = 0;
};

/// One stored object version, immutable once stored. Its JSON text is what list and
/// watch serve without re-serializing; the parsed tree is kept beside it unless the
/// type is held as text only (object_store::keep_as_text), because for the bulk kinds
/// the trees cost several times the text.
struct stored_object {
  std::string text;
  uint64_t resource_version = 0;
  /// In mirror mode, the upstream's resourceVersion (an etcd revision) as a number.
  uint64_t upstream_version = 0;
  std::shared_ptr<const json> tree; // null for a type held as text only

  /// The object as JSON: the kept tree, or parsed from the text.
  std::shared_ptr<const json> parsed() const;
};
using stored_ptr = std::shared_ptr<const stored_object>;

/// A watch event as the HTTP layer streams it; `previous` is the version before a
/// MODIFIED (null otherwise) so selector watches can turn it into ADDED/DELETED.
struct raw_event {
  std::string type;
  stored_ptr object;
  stored_ptr previous;
};

class object_store {
public:
  explicit object_store(std::size_t watch_history = 10000);

  void register_type(const resource_type& type);
  /// By key ("nodes", "virtualmachineinstances.kubevirt.io").
  std::optional<resource_type> find_type(const std::string& key) const;
  std::vector<resource_type> types() const;

  /// POST: fills uid, resourceVersion, creationTimestamp, generation=1, name from
  /// generateName (+5 random chars); AlreadyExists (409) when the name is taken.
  expected<json> create(const std::string& key, json object);
  expected<json> get(const std::string& key, const std::string& ns, const std::string& name) const;

  struct list_result {
    std::vector<json> items; // sorted by namespace, then name
    uint64_t resource_version = 0;
  };
  /// All objects of a type; `ns` empty means every namespace.
  list_result list(const std::string& key, const std::string& ns = {}) const;

  /// PUT: replaces the object. A resourceVersion in `object` must match (409 Conflict).
  /// `status_only` replaces just .status (the /status subresource); otherwise .status is
  /// kept as stored when the type has a status subresource. generation is bumped when
  /// .spec changes. With a `writer`, the write is recorded in metadata.managedFields
  /// (sim/managed_fields.hpp) as the request's Update.
  expected<json> replace(const std::string& key, json object, bool status_only,
                         const field_writer* writer = nullptr);

  /// Read-modify-write under the store lock, for in-process controllers and PATCH.
  /// `mutate` edits the object in place and returns false to abandon the write. A
  /// `writer` is recorded as for replace; without one, managedFields are as `mutate`
  /// leaves them (a server-side apply computes its own), on /status too.
  expected<json> modify(const std::string& key, const std::string& ns, const std::string& name,
                        const std::function<bool(json&)>& mutate, bool status_only = false,
                        const field_writer* writer = nullptr);

  /// DELETE: with finalizers present sets deletionTimestamp and keeps the object;
  /// otherwise removes it and emits DELETED. Returns the object as last stored.
  expected<json> remove(const std::string& key, const std::string& ns, const std::string& name);

  /// A graceful DELETE (a pod on a node): sets deletionTimestamp to now + `grace_seconds`
  /// and deletionGracePeriodSeconds, keeping the object until someone deletes it again
  /// with grace 0 (remove()), as the kubelet does once the containers stopped. A second
  /// call may only shorten the period. `grace_seconds` <= 0 is remove().
  expected<json> remove_gracefully(const std::string& key, const std::string& ns, const std::string& name,
                                   int64_t grace_seconds);

  /// Current global resourceVersion (the last one handed out).
  uint64_t resource_version() const;

  /// Events of `key` (and namespace `ns` if not empty) with resourceVersion > `since`.
  /// An error with ec::gone (HTTP 410) when `since` is older than the retained history.
  expected<std::vector<watch_event>> events_since(const std::string& key, const std::string& ns,
                                                  uint64_t since) const;

  /// Blocks until the global resourceVersion exceeds `seen` or `timeout` passes;
  /// returns the current resourceVersion.
  uint64_t wait_for_change(uint64_t seen, std::chrono::milliseconds timeout) const;

  /// Admission hook run on create (as a validating + mutating webhook would be): it may
  /// edit the object or return an error (HTTP status and message as the webhook says).
  using admission_hook = std::function<std::optional<error>(json& object)>;
  void set_admission(const std::string& key, admission_hook hook);

  /// Schema hook run on every create and update of `key` just before the write commits,
  /// on the object as it will be stored (after a patch is applied and the /status or
  /// main-resource copying): it may prune the object or refuse the write. `old` is null
  /// on create. It runs under the store lock and must not call the store.
  using write_validator =
    std::function<std::optional<error>(json& object, const json* old, bool status_only)>;
  void set_validator(const std::string& key, write_validator validator);

  /// Objects of `key` are held as their JSON text only and parsed when read: for the
  /// bulk types of a large scenario (VMIs, VMs, PVCs, PVs), which the API serves as
  /// bytes and nothing in the simulator scans on a hot path. Set before objects exist.
  void keep_as_text(const std::string& key);

  /// What a change observer is shown: the committed version, parsed (for DELETED, the
  /// object as last stored) and `peek`, read access to other objects under the same
  /// lock (null when absent).
  struct change {
    const std::string& type; // ADDED, MODIFIED, DELETED
    const json& object;
    uint64_t resource_version;
    const std::function<std::shared_ptr<const json>(const std::string& key, const std::string& ns,
                                                    const std::string& name)>& peek;
  };
  /// Called for every committed change of `key`, under the store lock and in commit
  /// order, so an observer misses no version (a bounded watch history could not promise
  /// that). It must not call the store; it reads other objects through change::peek.
  using change_observer = std::function<void(const change&)>;
  /// With `replay_current`, the observer is first shown every object of `key` that
  /// exists as ADDED, under the same lock, so it starts from the complete picture.
  void add_observer(const std::string& key, change_observer observer, bool replay_current = false);

  /// The HTTP layer's zero-copy views of list and events_since.
  struct snapshot {
    std::vector<stored_ptr> items; // sorted by namespace, then name
    uint64_t resource_version = 0;
  };
  snapshot list_stored(const std::string& key, const std::string& ns = {}) const;
  expected<std::vector<raw_event>> raw_events_since(const std::string& key, const std::string& ns,
                                                    uint64_t since) const;

  /// Mirror mode (schedopt-sim attach): create, replace, modify and the removes go to
  /// `upstream`, a real API server, and the store keeps what it answers; watches bring
  /// everyone else's changes through mirror(). The store then hands out no uid, name or
  /// resourceVersion of its own, and runs no admission hook or validator: the real
  /// server does (admission through sim/admission_webhooks). Set before anything is stored.
  void mirror_upstream(std::shared_ptr<upstream_api> upstream);

  /// Mirror mode: POSTs `body` to an action subresource of an object (pods/binding) on
  /// the upstream, whose answer the watch brings back. Not served otherwise.
  expected<json> post_subresource(const std::string& key, const std::string& ns, const std::string& name,
                                  const std::string& subresource, const json& body);

  /// An object as the upstream reported it (ADDED, MODIFIED, DELETED), stored as is
  /// unless the stored version is newer; observers see it as any other change.
  void mirror(const std::string& key, const std::string& type, json object);
  /// A list from the upstream: the type's objects become exactly `items`.
  void mirror_list(const std::string& key, const std::vector<json>& items);

  /// Wakes every waiter (used at shutdown).
  void notify_all() const;

private:
  expected<json> create_upstream(const std::string& key, json object);
  expected<json> modify_upstream(const std::string& key, const std::string& ns, const std::string& name,
                                 const std::function<bool(json&)>& mutate, bool status_only);
  expected<json> remove_upstream(const std::string& key, const std::string& ns, const std::string& name,
                                 int64_t grace_seconds);

  struct impl;
  std::shared_ptr<impl> impl_;
};

} // namespace schedopt::sim
