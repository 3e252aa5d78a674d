// Discovery documents in the legacy (unaggregated) JSON shape every kubectl accepts.
#include "sim/discovery.hpp"

#include <algorithm>

#include <openssl/evp.h>

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

/// apiserver pkg/endpoints/discovery/storageversionhash.go StorageVersionHash: the first
/// 8 bytes of the SHA-256 of "group/version/kind", base64.
std::string storage_version_hash(const resource_type& type) {
  auto gvk = type.group + "/" + type.version + "/" + type.kind;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(gvk.data(), gvk.size(), digest, &length, EVP_sha256(), nullptr);
  unsigned char encoded[16] = {};
  EVP_EncodeBlock(encoded, digest, 8);
  return reinterpret_cast<const char*>(encoded);
}

served_resource builtin(std::string group, std::string kind, std::string plural,
                        std::string singular, bool namespaced, bool status,
                        std::vector<std::string> short_names) {
  served_resource r;
  r.type.group = std::move(group);
  r.type.version = "v1";
  r.type.kind = kind;
  r.type.list_kind = kind + "List";
  r.type.plural = std::move(plural);
  r.type.singular = std::move(singular);
  r.type.namespaced = namespaced;
  r.type.status_subresource = status;
  r.type.short_names = std::move(short_names);
  r.versions = {"v1"};
  return r;
}

/// A create-only review resource (sim/access_reviews.hpp answers it).
served_resource review(std::string group, std::string kind, std::string plural, std::string singular) {
  auto r = builtin(std::move(group), std::move(kind), std::move(plural), std::move(singular), false,
                   false, {});
  r.create_only = true;
  return r;
}

/// A printer column read by jsonPath, as a CRD's additionalPrinterColumns are.
json printer_column(const std::string& name, const std::string& type, const std::string& path) {
  return {{"name", name}, {"type", type}, {"jsonPath", path}};
}

/// Listed by `kubectl get all`, as the built-in workload kinds are.
served_resource in_category_all(served_resource r) {
  r.type.categories = {"all"};
  return r;
}

served_resource with_columns(served_resource r, json columns) {
  columns.push_back(printer_column("Age", "date", ".metadata.creationTimestamp"));
  r.printer_columns = std::move(columns);
  return r;
}

/// Pods, with the eviction subresource kube-apiserver registers beside them
/// (pkg/registry/core/pod/storage/storage.go NewStorage: "pods/eviction", served as
/// policy/v1 Eviction, create only) and the columns `kubectl get pods -o wide` reads.
served_resource pods() {
  auto r = in_category_all(with_columns(builtin("", "Pod", "pods", "pod", true, true, {"po"}),
                                        {printer_column("Status", "string", ".status.phase"),
                                         printer_column("Node", "string", ".spec.nodeName")}));
  r.subresources.push_back({{"name", "pods/eviction"},
                            {"singularName", ""},
                            {"namespaced", true},
                            {"group", "policy"},
                            {"version", "v1"},
                            {"kind", "Eviction"},
                            {"verbs", {"create"}}});
  return r;
}

json group_version_entry(const std::string& group, const std::string& version) {
  return {{"groupVersion", group + "/" + version}, {"version", version}};
}

} // namespace

std::vector<served_resource> builtin_resources() {
  return {
    builtin("", "Namespace", "namespaces", "namespace", false, true, {"ns"}),
    builtin("", "Node", "nodes", "node", false, true, {"no"}),
    builtin("", "PersistentVolumeClaim", "persistentvolumeclaims", "persistentvolumeclaim", true,
            true, {"pvc"}),
    builtin("", "PersistentVolume", "persistentvolumes", "persistentvolume", false, true, {"pv"}),
    builtin("", "Event", "events", "event", true, false, {"ev"}),
    builtin("", "ConfigMap", "configmaps", "configmap", true, false, {"cm"}),
    builtin("coordination.k8s.io", "Lease", "leases", "lease", true, false, {}),
    // The workloads of podHyperconvergence (SPEC §9): stateful pods, their controllers
    // and their disruption budgets; daemonsets and jobs own pods no one re-places.
    pods(),
    in_category_all(with_columns(builtin("apps", "StatefulSet", "statefulsets", "statefulset", true, true, {"sts"}),
                                 {printer_column("Ready", "integer", ".status.readyReplicas"),
                                  printer_column("Replicas", "integer", ".spec.replicas")})),
    in_category_all(with_columns(builtin("apps", "ReplicaSet", "replicasets", "replicaset", true, true, {"rs"}),
                                 {printer_column("Desired", "integer", ".spec.replicas"),
                                  printer_column("Current", "integer", ".status.replicas"),
                                  printer_column("Ready", "integer", ".status.readyReplicas")})),
    in_category_all(builtin("apps", "DaemonSet", "daemonsets", "daemonset", true, true, {"ds"})),
    in_category_all(builtin("batch", "Job", "jobs", "job", true, true, {})),
    with_columns(builtin("policy", "PodDisruptionBudget", "poddisruptionbudgets", "poddisruptionbudget",
                         true, true, {"pdb"}),
                 {printer_column("Min Available", "string", ".spec.minAvailable"),
                  printer_column("Max Unavailable", "string", ".spec.maxUnavailable"),
                  printer_column("Allowed Disruptions", "integer", ".status.disruptionsAllowed")}),
    // What an install of schedopt (deploy/) creates besides its CRDs, so `kubectl apply -k`
    // of it succeeds; the RBAC kinds are also what --authorization rbac reads.
    builtin("", "ServiceAccount", "serviceaccounts", "serviceaccount", true, false, {"sa"}),
    builtin("", "Service", "services", "service", true, true, {"svc"}),
    builtin("", "Secret", "secrets", "secret", true, false, {}),
    builtin("apps", "Deployment", "deployments", "deployment", true, true, {"deploy"}),
    builtin("networking.k8s.io", "NetworkPolicy", "networkpolicies", "networkpolicy", true, false,
            {"netpol"}),
    builtin("rbac.authorization.k8s.io", "ClusterRole", "clusterroles", "clusterrole", false, false, {}),
    builtin("rbac.authorization.k8s.io", "ClusterRoleBinding", "clusterrolebindings",
            "clusterrolebinding", false, false, {}),
    builtin("rbac.authorization.k8s.io", "Role", "roles", "role", true, false, {}),
    builtin("rbac.authorization.k8s.io", "RoleBinding", "rolebindings", "rolebinding", true, false, {}),
    builtin("apiextensions.k8s.io", "CustomResourceDefinition", "customresourcedefinitions",
            "customresourcedefinition", false, true, {"crd", "crds"}),
    review("authentication.k8s.io", "TokenReview", "tokenreviews", "tokenreview"),
    review("authorization.k8s.io", "SubjectAccessReview", "subjectaccessreviews",
           "subjectaccessreview"),
    review("authorization.k8s.io", "SelfSubjectAccessReview", "selfsubjectaccessreviews",
           "selfsubjectaccessreview"),
    review("authentication.k8s.io", "SelfSubjectReview", "selfsubjectreviews", "selfsubjectreview"),
  };
}

void resource_registry::add(served_resource resource) {
  // By group and plural: a resource served from another's store shares its key.
  auto same = [&](const served_resource& r) {
    return r.type.group == resource.type.group && r.type.plural == resource.type.plural;
  };
  auto it = std::find_if(resources_.begin(), resources_.end(), same);
  if (it != resources_.end())
    *it = std::move(resource);
  else
    resources_.push_back(std::move(resource));
}

const served_resource* resource_registry::find(const std::string& group, const std::string& version,
                                               const std::string& plural) const {
  for (auto& r : resources_)
    if (r.type.group == group && r.type.plural == plural
        && std::find(r.versions.begin(), r.versions.end(), version) != r.versions.end())
      return &r;
  return nullptr;
}

json resource_registry::api_versions() const {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs",
           {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", "127.0.0.1:443"}}}}};
}

json resource_registry::api_group(const std::string& group) const {
  std::vector<std::string> versions;
  for (auto& r : resources_)
    if (r.type.group == group)
      for (auto& v : r.versions)
        if (std::find(versions.begin(), versions.end(), v) == versions.end())
          versions.push_back(v);
  if (group.empty() || versions.empty())
    return nullptr;
  json entries = json::array();
  for (auto& v : versions)
    entries.push_back(group_version_entry(group, v));
  return {{"kind", "APIGroup"},
          {"apiVersion", "v1"},
          {"name", group},
          {"versions", entries},
          {"preferredVersion", entries[0]}};
}

json resource_registry::api_group_list() const {
  std::vector<std::string> groups;
  for (auto& r : resources_)
    if (!r.type.group.empty()
        && std::find(groups.begin(), groups.end(), r.type.group) == groups.end())
      groups.push_back(r.type.group);
  json list = json::array();
  for (auto& g : groups) {
    auto entry = api_group(g);
    entry.erase("kind");
    entry.erase("apiVersion");
    list.push_back(entry);
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", list}};
}

json resource_registry::resource_list(const std::string& group, const std::string& version) const {
  json resources = json::array();
  bool any = false;
  for (auto& r : resources_) {
    if (r.type.group != group
        || std::find(r.versions.begin(), r.versions.end(), version) == r.versions.end())
      continue;
    any = true;
    json entry = {{"name", r.type.plural},
                  {"singularName", r.type.singular},
                  {"namespaced", r.type.namespaced},
                  {"kind", r.type.kind},
                  {"verbs", r.create_only ? json{"create"}
                            // apiextensions-apiserver customresource_discovery_controller.go
                            : r.custom ? json{"delete", "deletecollection", "get", "list", "patch", "create",
                                              "update", "watch"}
                                       : json{"create", "delete", "deletecollection", "get", "list", "patch",
                                              "update", "watch"}},
                  {"storageVersionHash", storage_version_hash(r.type)}};
    if (!r.type.short_names.empty())
      entry["shortNames"] = r.type.short_names;
    if (!r.type.categories.empty())
      entry["categories"] = r.type.categories;
    resources.push_back(entry);
    if (r.type.status_subresource)
      resources.push_back({{"name", r.type.plural + "/status"},
                           {"singularName", ""},
                           {"namespaced", r.type.namespaced},
                           {"kind", r.type.kind},
                           {"verbs", {"get", "patch", "update"}}});
    for (const auto& sub : r.subresources)
      resources.push_back(sub);
  }
  if (!any)
    return nullptr;
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", group.empty() ? version : group + "/" + version},
          {"resources", resources}};
}

json version_info() {
  // The release the simulator's API behaviour follows (the one the differential suite
  // compares it with), with its compatibility-version fields (component-base
  // version.Info).
  return {{"major", "1"},
          {"minor", "37"},
          {"emulationMajor", "1"},
          {"emulationMinor", "37"},
          {"minCompatibilityMajor", "1"},
          {"minCompatibilityMinor", "36"},
          {"gitVersion", "v1.37.2"},
          {"gitCommit", "$Format:%H$"},
          {"gitTreeState", "clean"},
          {"buildDate", "2026-10-27T12:01:04Z"},
          {"goVersion", "go1.26.8"},
          {"compiler", "gc"},
          {"platform", "linux/amd64"}};
}

} // namespace schedopt::sim
