// The vocabulary of the API client: which resource, which request, what came back.
// Plain structs with a generic inspect() so they travel as CAF messages unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace schedopt::k8s {

/// One REST resource: /api/v1/... for the core group, /apis/<group>/<version>/... else.
struct resource {
  std::string group; // "" for core
  std::string version;
  std::string plural;
  bool namespaced = true;

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
};

inline bool operator==(const resource& a, const resource& b) {
  return a.group == b.group && a.version == b.version && a.plural == b.plural
         && a.namespaced == b.namespaced;
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, resource& x) {
  return f(x.group, x.version, x.plural, x.namespaced);
}

/// The resources schedopt reads and writes.
namespace resources {
inline const resource scheduling_optimizations{"stork.libopenstorage.org", "v1alpha1",
                                               "schedulingoptimizations", false};
inline const resource vmis{"kubevirt.io", "v1", "virtualmachineinstances", true};
inline const resource vmims{"kubevirt.io", "v1", "virtualmachineinstancemigrations", true};
inline const resource vms{"kubevirt.io", "v1", "virtualmachines", true};
inline const resource kubevirts{"kubevirt.io", "v1", "kubevirts", true};
inline const resource pvcs{"", "v1", "persistentvolumeclaims", true};
inline const resource pvs{"", "v1", "persistentvolumes", false};
inline const resource nodes{"", "v1", "nodes", false};
inline const resource namespaces{"", "v1", "namespaces", false};
inline const resource events{"", "v1", "events", true};
inline const resource leases{"coordination.k8s.io", "v1", "leases", true};
inline const resource configmaps{"", "v1", "configmaps", true};
// Pods and their workloads: read and written by the pod kind (docs/design.md §9).
inline const resource pods{"", "v1", "pods", true};
inline const resource stateful_sets{"apps", "v1", "statefulsets", true};
inline const resource replica_sets{"apps", "v1", "replicasets", true};
inline const resource pod_disruption_budgets{"policy", "v1", "poddisruptionbudgets", true};
// Read by the longhorn storage driver.
inline const resource longhorn_replicas{"longhorn.io", "v1beta2", "replicas", true};
inline const resource longhorn_volumes{"longhorn.io", "v1beta2", "volumes", true};
} // namespace resources

// -- requests ---------------------------------------------------------------
// `namespace_` is ignored for cluster-scoped resources; empty means all namespaces
// for list and watch.

/// GET one object (optionally a subresource such as "status").
struct get_request {
  resource res;
  std::string namespace_;
  std::string name;
  std::string subresource;
};

/// GET a collection. `limit` 0 = server default (no paging). With `all_pages` the
/// client follows `continue` tokens and returns every page.
struct list_request {
  resource res;
  std::string namespace_;
  std::string label_selector;
  std::string field_selector;
  int64_t limit = 500;
  std::string continue_token;
  bool all_pages = true;
};

/// POST a new object; `body` is the JSON object (metadata.generateName works).
struct create_request {
  resource res;
  std::string namespace_;
  std::string body;
};

/// PATCH, by default `application/merge-patch+json`; `status` targets /status;
/// `json_patch` sends `application/json-patch+json` instead.
struct patch_request {
  resource res;
  std::string namespace_;
  std::string name;
  std::string body;
  bool status = false;
  bool json_patch = false;
};

/// PUT the whole object; `body` carries metadata.resourceVersion for optimistic
/// concurrency (409 Conflict when stale). `status` targets /status.
struct update_request {
  resource res;
  std::string namespace_;
  std::string name;
  std::string body;
  bool status = false;
};

/// DELETE with optional preconditions (uid / resourceVersion must match, else 409).
struct delete_request {
  resource res;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string propagation_policy; // "", "Background", "Foreground", "Orphan"
};

/// POST /api/v1/namespaces/<ns>/pods/<name>/eviction: `body` is the policy/v1 Eviction
/// (the pod kind's eviction_body). Sent once: the client
/// never retries it, not on 429, 5xx or a lost connection, and hands back every answer
/// as an eviction_response, because what a 429 or a 500 means for an eviction (a budget
/// that has no disruption to spare, a pod under two budgets) is the eviction engine's
/// to decide, and its backoff is paced by the eviction window, not by the client's five
/// attempts.
struct eviction_request {
  std::string namespace_;
  std::string name;
  std::string body;
};

/// A watch stream (`?watch=1`); see watch_chunk / watch_closed in actors/k8s_messages.hpp.
struct watch_request {
  resource res;
  std::string namespace_;
  std::string resource_version;
  std::string label_selector;
  std::string field_selector;
  int64_t timeout_seconds = 300; // server-side timeoutSeconds; the stream ends cleanly
  bool allow_bookmarks = true;
};

// -- responses --------------------------------------------------------------

/// A successful (2xx) answer: status code and the response body (JSON).
struct api_response {
  int http_status = 0;
  std::string body;
};

/// Whatever an eviction got: the status and body of any answer (2xx or not), or
/// `http_status` 0 with the transport error when none came.
struct eviction_response {
  int http_status = 0;
  std::string body;
  std::string retry_after; // the Retry-After header, as sent
  std::string transport_error;
};

/// Every page of a list, each a `...List` JSON document (decode with decode_list<T>),
/// plus the resourceVersion of the first page (the snapshot the pages belong to).
struct list_response {
  std::vector<std::string> pages;
  std::string resource_version;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, get_request& x) {
  return f(x.res, x.namespace_, x.name, x.subresource);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, list_request& x) {
  return f(x.res, x.namespace_, x.label_selector, x.field_selector, x.limit, x.continue_token,
           x.all_pages);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, create_request& x) {
  return f(x.res, x.namespace_, x.body);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, patch_request& x) {
  return f(x.res, x.namespace_, x.name, x.body, x.status, x.json_patch);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, update_request& x) {
  return f(x.res, x.namespace_, x.name, x.body, x.status);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, delete_request& x) {
  return f(x.res, x.namespace_, x.name, x.uid, x.resource_version, x.propagation_policy);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, eviction_request& x) {
  return f(x.namespace_, x.name, x.body);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, eviction_response& x) {
  return f(x.http_status, x.body, x.retry_after, x.transport_error);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, watch_request& x) {
  return f(x.res, x.namespace_, x.resource_version, x.label_selector, x.field_selector,
           x.timeout_seconds, x.allow_bookmarks);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, api_response& x) {
  return f(x.http_status, x.body);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, list_response& x) {
  return f(x.pages, x.resource_version);
}

} // namespace schedopt::k8s
